import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, limit } from '../../plugins/security.js';
import { provenForPathToken } from './owner-proof.js';

/** Rate-limit keys hold a hash of the token in the path, never the secret itself. */
export const tokenKey = (request: FastifyRequest) =>
  createHash('sha256')
    .update((request.params as { token?: string }).token ?? '')
    .digest('base64url')
    .slice(0, 22);

/** Route config for a limit per token: `max` requests per `timeWindow` ms, counted under `name`. */
export const perToken = (app: FastifyInstance, name: string, max: number, timeWindow: number) =>
  limit(app, { max, timeWindow, keyGenerator: (request) => `${name}:${tokenKey(request)}` });

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
      `${name}:${tokenKey(request)}:${request.ip}${(await provenForPathToken(app, request)) ? ':owner' : ''}`,
  });

/**
 * A limit per token that a service charges only when it applies (a new test alert, not a
 * replay or a real alert): each call counts one, and throws the 429 once over `max` per
 * `timeWindow` ms. Lifted with the other limits.
 */
export function perTokenCharge(app: FastifyInstance, name: string, max: number, timeWindow: number) {
  const counter = new Counter(app, name, max, timeWindow, tokenKey);
  return (request: FastifyRequest) => counter.take(request);
}
