import { expect } from '@playwright/test';

/** Logs a seeded user in through the API and sets what contacts see; returns the session's tokens. */
export async function setProfile(base: string, username: string, fields: Record<string, unknown>) {
  const login = await fetch(`${base}/api/users/auth/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'correct horse 42' }),
  });
  const tokens = (await login.json()) as { access: string; refresh: string };
  const res = await fetch(`${base}/api/users/me/`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access}` },
    body: JSON.stringify(fields),
  });
  expect(res.status).toBe(200);
  return tokens;
}
