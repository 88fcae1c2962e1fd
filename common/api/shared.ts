/** Pieces every part of the API contract uses. */
import { z } from 'zod';
import { errorBody } from './errors.js';
import type { ApiRoute } from './paths.js';

/** The error answers a route can give, each the shared error body. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof errorBody> {
  return Object.fromEntries(statuses.map((status) => [status, errorBody])) as Record<S, typeof errorBody>;
}

/** A 204 answer. */
export const noContent = z.undefined().describe('No content.');

/** A route with an `{id}` in its path (any text: an unknown or malformed id is a 404). */
export const idParams = z.object({ id: z.string() });

/** `{"detail": text}`: the generic answers that tell nothing about an account. */
export const detailAnswer = z.object({ detail: z.string() }).meta({ id: 'Detail' });

/**
 * Who may call a route, as its OpenAPI `security` says it: each entry one way in, `{}` none
 * needed. The schemes are declared with the document (server/plugins/api.ts).
 */
export const SECURITY = {
  /** Anyone. */
  none: [],
  /** The owner's session: `Authorization: Bearer <access>`. */
  session: [{ bearer: [] }],
  /**
   * The personal link: its token in the path is the credential, so a link holder needs nothing
   * more; the owner's proof (session or device key), when sent, makes the call the owner's.
   */
  link: [{}, { bearer: [] }, { deviceKey: [] }],
  /** The link and the owner's proof, the session or a device key: what lowers an alarm. */
  ownerProof: [{ bearer: [] }, { deviceKey: [] }],
  /** The link and a device key of the owner's. */
  deviceKey: [{ deviceKey: [] }],
  /** The payment provider's callbacks, signed (Stripe-Signature). */
  stripe: [{ stripeSignature: [] }],
  /** The SMS and voice provider's callbacks, signed (X-Twilio-Signature). */
  twilio: [{ twilioSignature: [] }],
} as const;

type Security = (typeof SECURITY)[keyof typeof SECURITY];

/**
 * What the OpenAPI document says of a route besides its schemas: its `operationId` (the name
 * client generators give its function, e.g. `sendAlert`), a one-line summary, and who may call it.
 */
export const operation = (operationId: string, summary: string, security: Security) =>
  ({ operationId, summary, security }) as const;

/**
 * The contract of an area's routes: each entry is its route's method and URL (from routes.ts)
 * with its operation (above) and its schema (params, headers, body, response, description), and
 * no route goes without them.
 */
export type Contract<Routes> = {
  readonly [K in keyof Routes]: Routes[K] & ReturnType<typeof operation> & Readonly<Record<string, unknown>>;
};

/** Fastify's route options from a contract entry: its method, its URL, and the rest as its schema. */
export function served<const E extends ApiRoute>(
  entry: E,
): { method: E['method']; url: E['url']; schema: Omit<E, 'method' | 'url'> } {
  const { method, url, ...schema } = entry;
  return { method, url, schema };
}
