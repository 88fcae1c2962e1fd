import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../lib/ids.js';
import { DAY, SECOND } from '../../lib/time.js';
import type { RefreshClient } from './repository.js';

/**
 * The login device cookie (OWASP's "device cookie"): set by a successful login, it tells a
 * browser the owner logged in from before. Its value names the account and a random id of
 * the browser, signed with a secret derived from the server's (so only this server makes
 * one); it proves no identity, it only lets that browser past the login limits meant for
 * strangers (throttle.ts). HttpOnly, SameSite=Strict, Secure over https, and sent only to
 * /api/users/ (login and refresh).
 */
export const DEVICE_COOKIE = 'alerta_device';
export const DEVICE_COOKIE_PATH = '/api/users/';
/** How long a browser stays known after its last login. */
export const DEVICE_COOKIE_MAX_AGE_MS = 365 * DAY;

/** The browser a login device cookie names: its random id, for one account. */
export interface LoginDevice {
  userId: string;
  deviceId: string;
}

/** A new browser id: 128 random bits. */
export const newDeviceId = (): string => randomToken(16);

/** The device cookie the request carries, when it is one this server signed; null otherwise. */
export function presentedDevice(request: FastifyRequest): LoginDevice | null {
  const raw = request.cookies?.[DEVICE_COOKIE];
  if (!raw || raw.length > 300) return null;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  const [userId, deviceId, extra] = unsigned.value.split('.');
  if (!userId || !deviceId || extra !== undefined) return null;
  return { userId, deviceId };
}

/** Sets (or renews for another year) the device cookie of a browser that just logged in. */
export function rememberDevice(request: FastifyRequest, reply: FastifyReply, device: LoginDevice): void {
  reply.setCookie(DEVICE_COOKIE, `${device.userId}.${device.deviceId}`, {
    signed: true,
    httpOnly: true,
    secure: request.protocol === 'https',
    sameSite: 'strict',
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_COOKIE_MAX_AGE_MS / SECOND,
  });
}

/**
 * Who presents a refresh token, as the refresh grace compares it: a hash of the client
 * address and User-Agent, and the id of its device cookie when that names the token's user.
 */
export function refreshClient(request: FastifyRequest, userId: string): RefreshClient {
  const userAgent = request.headers['user-agent'] ?? '';
  const by = createHash('sha256').update(`${request.ip}\n${userAgent}`).digest('base64url');
  const device = presentedDevice(request);
  return { by, device: device?.userId === userId ? device.deviceId : null };
}
