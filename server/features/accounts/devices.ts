import { createHash } from 'node:crypto';
import { randomToken } from '../../lib/ids.js';
import { DAY } from '../../lib/time.js';
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

/** The browser a signed device cookie's value names ("<user id>.<browser id>"), else null. */
export function deviceOf(value: string): LoginDevice | null {
  const [userId, deviceId, extra] = value.split('.');
  if (!userId || !deviceId || extra !== undefined) return null;
  return { userId, deviceId };
}

/** The value the device cookie holds (signed) for a browser. */
export const deviceCookieValue = (device: LoginDevice) => `${device.userId}.${device.deviceId}`;

/**
 * Who is logging in or refreshing, as the limits and the refresh grace see them: the
 * client address, the User-Agent, and the browser its device cookie names when this
 * server signed it.
 */
export interface Client {
  ip: string;
  userAgent: string;
  device: LoginDevice | null;
}

/**
 * Who presents a refresh token, as the refresh grace compares it: a hash of the client
 * address and User-Agent, and the id of its device cookie when that names the token's user.
 */
export function refreshClient(client: Client, userId: string): RefreshClient {
  const by = createHash('sha256').update(`${client.ip}\n${client.userAgent}`).digest('base64url');
  return { by, device: client.device?.userId === userId ? client.device.deviceId : null };
}
