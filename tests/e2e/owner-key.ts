import type { BrowserContext } from '@playwright/test';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants.js';
import type { SeededUser } from './seed.js';

/** The seeded users' password (tests/e2e/seed.ts). */
const PASSWORD = 'correct horse 42';

/** POSTs JSON to the server; throws unless it answers 2xx. */
async function post<T>(base: string, path: string, body: unknown, access?: string): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(access ? { authorization: `Bearer ${access}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path} → ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Makes `context` the owner's phone: a device key issued to `user`, kept where the emergency
 * page's sign-in keeps it, before any page of the context loads. The page's calls then carry the
 * owner's proof ("I'm safe", positions on the owner's alert, the contacts' whole numbers).
 */
export async function ownersPhone(context: BrowserContext, base: string, user: SeededUser): Promise<string> {
  const { access } = await post<{ access: string }>(base, '/api/users/auth/login/', {
    username: user.username,
    password: PASSWORD,
  });
  const { device_key: key } = await post<{ device_key: string }>(base, '/api/users/me/device-keys/', {}, access);
  await context.addInitScript(
    ([name, value]) => {
      localStorage.setItem(name as string, value as string);
    },
    [DEVICE_KEY_STORAGE_KEY, JSON.stringify({ key, user: user.username })],
  );
  return key;
}
