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
 * The contract of an area's routes: each entry is its route's method and URL (from routes.ts)
 * with its schema (params, headers, body, response, description), and no route goes without one.
 */
export type Contract<Routes> = { readonly [K in keyof Routes]: Routes[K] & Readonly<Record<string, unknown>> };

/** Fastify's route options from a contract entry: its method, its URL, and the rest as its schema. */
export function served<const E extends ApiRoute>(
  entry: E,
): { method: E['method']; url: E['url']; schema: Omit<E, 'method' | 'url'> } {
  const { method, url, ...schema } = entry;
  return { method, url, schema };
}
