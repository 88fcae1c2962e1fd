import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { DEVICE_KEY_HEADER } from '../../../common/constants.js';
import { detailError } from '../../lib/errors.js';
import { limit } from '../../plugins/security.js';
import { deviceName } from '../accounts/index.js';
import { issueDeviceKey, type OwnerProof, type ProofDeps, provenUsers, sentProof, tokenOwnerId } from './proof.js';

/** Rate-limit keys hold a hash of an alert token, never the secret itself. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url').slice(0, 22);

/** The device key header as Node hands it over (header names lowercased). */
const DEVICE_KEY = DEVICE_KEY_HEADER.toLowerCase();

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The owner's proof as the request carries it (proof.ts). */
const proofOf = (request: FastifyRequest): OwnerProof => ({
  authorization: headerValue(request.headers.authorization),
  deviceKey: headerValue(request.headers[DEVICE_KEY]),
});

/** The token in the request's path, '' when it has none. */
const pathToken = (request: FastifyRequest) => {
  const token = (request.params as { token?: unknown }).token;
  return typeof token === 'string' ? token : '';
};

/** Checked once per request (the address ceiling and the route may both ask). */
const checked = new WeakMap<FastifyRequest, Promise<Set<string>>>();

/** Whether the request carries a verified proof of `userId`. */
export async function carriesOwnerProof(app: ProofDeps, request: FastifyRequest, userId: string): Promise<boolean> {
  const proof = proofOf(request);
  if (!sentProof(proof)) return false;
  let users = checked.get(request);
  if (!users) {
    users = provenUsers(app, proof);
    checked.set(request, users);
  }
  return (await users).has(userId);
}

/** Answered once per request: the address ceiling, the limit's key and the route may all ask. */
const provenOnPath = new WeakMap<FastifyRequest, Promise<boolean>>();

/**
 * Whether the request carries a verified proof of the owner of the token in its path: what
 * lets the owner's alert past the per-address ceiling. Without a proof header nothing is read;
 * with one, the token's owner is read once per request (the page route asked three times).
 */
export function provenForPathToken(app: ProofDeps, request: FastifyRequest): Promise<boolean> {
  if (!sentProof(proofOf(request))) return Promise.resolve(false);
  let proven = provenOnPath.get(request);
  if (!proven) {
    proven = tokenOwnerId(app, pathToken(request)).then((owner) =>
      owner ? carriesOwnerProof(app, request, owner) : false,
    );
    provenOnPath.set(request, proven);
  }
  return proven;
}

/**
 * Route config for a limit per token and client address: the owner's own calls after an
 * alert (position updates, status and live polling, "I'm safe") cannot be used up by anyone
 * else holding the link from another address. Calls carrying the owner's verified proof
 * (session or device key) count apart, so not even a link holder on the owner's address can.
 */
export const perTokenClient = (app: FastifyInstance, name: string, max: number, timeWindow: number) =>
  limit(app, {
    max,
    timeWindow,
    keyGenerator: async (request) =>
      `${name}:${tokenHash(pathToken(request))}:${request.ip}${(await provenForPathToken(app, request)) ? ':owner' : ''}`,
  });

/** `POST /api/users/me/device-keys/`: a device key for the signed-in owner's emergency page. */
export default async function deviceKeyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(alertsApi.deviceKey),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      const to = { sessionId: request.sessionId, name: deviceName(request.headers['user-agent']) };
      return reply.code(201).send({ device_key: await issueDeviceKey(app, request.user.id, to) });
    },
  });
}

const PROOF_REQUIRED =
  "Only the owner can do this: sign in once on this phone (the emergency page's sign-in) and try again.";

/**
 * Refuses with 403 `owner_proof_required` unless the request carries a verified proof of
 * `userId`: what every route that ends, postpones, moves or quiets an alarm asks first
 * (a link can raise the alarm; only the owner can lower it).
 */
export async function requireOwnerProof(app: ProofDeps, request: FastifyRequest, userId: string): Promise<void> {
  if (!(await carriesOwnerProof(app, request, userId))) throw detailError(403, PROOF_REQUIRED, 'owner_proof_required');
}
