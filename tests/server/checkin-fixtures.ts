import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Owner } from './alerts-fixtures.js';

// Shared by the check-in tests: the owner's proof as the emergency page sends it, and the calls.

/** The owner's proof as the emergency page sends it: a device key its session issued (it outlives the session). */
export type DeviceProof = { 'x-alerta-device-key': string };

/** Issues a device key with the owner's session, as the page's sign-in does. */
export async function deviceProof(app: FastifyInstance, owner: Owner): Promise<DeviceProof> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/users/me/device-keys/',
    headers: owner.headers,
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(201);
  return { 'x-alerta-device-key': res.json().device_key as string };
}

export const checkinsPath = (token: string) => `/api/emergency/public/${token}/checkins/`;

/** Starts a check-in with the link alone (raising needs no proof). */
export const startCheckin = (
  app: FastifyInstance,
  token: string,
  options: { body?: object; ip?: string; key?: string } = {},
) =>
  app.inject({
    method: 'POST',
    url: checkinsPath(token),
    headers: { 'idempotency-key': options.key ?? randomUUID() },
    payload: options.body ?? { duration_seconds: 1800 },
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });

/** `done`, `extend` or `location` on a check-in, with `proof` headers (none: the link alone). */
export const checkinCall = (
  app: FastifyInstance,
  token: string,
  id: string,
  action: 'done' | 'extend' | 'location',
  options: { payload?: object; proof?: object; ip?: string } = {},
) =>
  app.inject({
    method: 'POST',
    url: `${checkinsPath(token)}${id}/${action}/`,
    headers: { ...(options.proof ?? {}) },
    payload: options.payload ?? {},
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });
