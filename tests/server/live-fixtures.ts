import type { FastifyInstance } from 'fastify';
import { issueDeviceKey, tokenOwnerId } from '../../server/features/owner/proof.js';
import { LISBON, lisbonAt, postAlert } from './alerts-fixtures.js';

/** A real alert sent for `token`; returns its id and public id. */
export async function sendRealAlert(app: FastifyInstance, token: string, location: unknown = lisbonAt(app)) {
  const res = await postAlert(app, token, { mode: 'real', location });
  if (res.statusCode !== 201) throw new Error(`alert not sent: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; public_id: string; created_at: string };
}

/** Posts a live position for an alert. */
export const postPosition = (app: FastifyInstance, token: string, alertId: string, body: unknown) =>
  app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/${alertId}/location/`,
    payload: body as Record<string, unknown>,
  });

/** What a live link shows. */
export const getLive = (app: FastifyInstance, publicId: string) =>
  app.inject({ method: 'GET', url: `/api/live/${publicId}/` });

/** "I'm on my way" from a live page. */
export const postAck = (app: FastifyInstance, publicId: string, body: unknown = {}, ip = '127.0.0.1') =>
  app.inject({
    method: 'POST',
    url: `/api/live/${publicId}/ack/`,
    payload: body as Record<string, unknown>,
    remoteAddress: ip,
  });

/** The proof the owner's emergency page sends: a device key issued to the owner of `token`. */
export async function ownerProofOf(app: FastifyInstance, token: string): Promise<Record<string, string>> {
  const owner = await tokenOwnerId(app, token);
  if (!owner) throw new Error('no owner for this token');
  return { 'x-alerta-device-key': await issueDeviceKey(app, owner) };
}

/**
 * "I'm safe" from the owner's emergency page, with its device key (only the owner may end an
 * alert); `proof` replaces it (`{}` for a link alone). An unknown token goes without one.
 */
export const postResolve = async (
  app: FastifyInstance,
  token: string,
  alertId: string,
  body: unknown,
  proof?: Record<string, string>,
) =>
  app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/${alertId}/resolve/`,
    headers: proof ?? ((await tokenOwnerId(app, token)) ? await ownerProofOf(app, token) : {}),
    payload: body as Record<string, unknown>,
  });

/** A fix `metresNorth` north of Lisbon, taken at `at` (epoch ms). */
export const moved = (metresNorth: number, at: number) => ({
  latitude: LISBON.latitude + metresNorth / 111_320,
  longitude: LISBON.longitude,
  accuracy: 8,
  captured_at: new Date(at).toISOString(),
});
