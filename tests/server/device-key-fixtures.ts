import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { login } from './accounts-helpers.js';
import { lisbonAt, type Owner } from './alerts-fixtures.js';
import { TEST_PASSWORD, type TestApp } from './helper.js';

/** A phone's User-Agent: its key is named "Chrome · Android". */
export const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

export type Headers = Record<string, string>;

/** A device key issued to the login `headers` carry, from a browser with `userAgent`. */
export async function issueKey(t: TestApp, headers: Headers, userAgent = ANDROID_CHROME): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/users/me/device-keys/',
    headers: { ...headers, 'user-agent': userAgent },
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().device_key as string;
}

/** The headers that present a device key beside the link. */
export const keyProof = (key: string) => ({ 'x-alerta-device-key': key });

/** The owner's personal token as it is now (the links may have been replaced). */
export const tokenOf = async (t: TestApp, owner: Owner) =>
  (await t.app.db.selectFrom('users').select('token').where('id', '=', owner.user.id).executeTakeFirstOrThrow())
    .token as string;

/** A real alert on the owner's current link, with `proof`, from `ip`. */
export async function sendAlert(t: TestApp, owner: Owner, proof: Headers, ip: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/emergency/public/${await tokenOf(t, owner)}/alerts/`,
    headers: { 'idempotency-key': randomUUID(), ...proof },
    payload: { mode: 'real', location: lisbonAt(t.app) },
    remoteAddress: ip,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; proven: boolean };
}

/** Signs the owner in with a password, as the app or the emergency page does: the new login's headers. */
export async function signIn(t: TestApp, owner: Owner, password = TEST_PASSWORD): Promise<Headers> {
  return (await signInWithRefresh(t, owner, password)).headers;
}

/** A new login's headers and its refresh token. */
export async function signInWithRefresh(t: TestApp, owner: Owner, password = TEST_PASSWORD) {
  const res = await login(t, owner.user.username, password);
  expect(res.statusCode, res.body).toBe(200);
  const { access, refresh } = res.json() as { access: string; refresh: string };
  return { headers: { authorization: `Bearer ${access}` } as Headers, refresh };
}
