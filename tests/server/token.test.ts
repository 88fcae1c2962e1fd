import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { buildTestApp, createUser, dbLabel, type TestApp } from './helper.js';

const ROTATE = '/api/users/token/rotate/';
// 24 random bytes in base64url: 192 bits, URL-safe.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

describe(`personal alert token (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const tokenOf = async (userId: string) =>
    (await t.app.db.selectFrom('users').select('token').where('id', '=', userId).executeTakeFirstOrThrow()).token;
  const manifest = (token: string) => t.app.inject({ method: 'GET', url: `/public/${token}/manifest.webmanifest` });

  const alertPage = (token: string) => t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` });
  const me = async (headers: { authorization: string }) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  it('shows no token on /me until a plan is active, then the same one in both places', async () => {
    const user = await createUser(t.app);
    expect(await me(user.headers)).toMatchObject({ token: null, profile: { token: null, has_premium: false } });
    await activateSubscription(t.app.db, { userId: user.user.id, plan: 'basic', now: t.clock.now() });
    const shown = await me(user.headers);
    expect(shown.token).toMatch(TOKEN_SHAPE);
    expect(shown.profile).toMatchObject({ token: shown.token, plan: 'basic', contact_limit: 3 });
  });

  it('answers 401 without a valid access token', async () => {
    expect((await t.app.inject({ method: 'POST', url: ROTATE })).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'POST', url: ROTATE, headers: { authorization: 'Bearer x.y.z' } });
    expect(res.statusCode).toBe(401);
  });

  it('answers 402 without an active subscription and issues no token', async () => {
    const user = await createUser(t.app);
    const res = await t.app.inject({ method: 'POST', url: ROTATE, headers: user.headers });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({ detail: 'An active subscription is required.', code: 'subscription_required' });
    expect(await tokenOf(user.user.id)).toBeNull();
  });

  it('replaces the token, and links with the old one stop working at once', async () => {
    const user = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: user.user.id, plan: 'basic', now: t.clock.now() });
    const first = await tokenOf(user.user.id);
    expect(first).toMatch(TOKEN_SHAPE);
    expect((await manifest(first as string)).statusCode).toBe(200);

    const res = await t.app.inject({ method: 'POST', url: ROTATE, headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { token } = res.json() as { token: string };
    expect(token).toMatch(TOKEN_SHAPE);
    expect(token).not.toBe(first);
    expect(await tokenOf(user.user.id)).toBe(token);

    expect((await manifest(first as string)).statusCode).toBe(404);
    expect((await manifest(token)).statusCode).toBe(200);
    expect((await alertPage(first as string)).statusCode).toBe(404);
    expect((await alertPage(token)).statusCode).toBe(200);
    expect(await me(user.headers)).toMatchObject({ token, profile: { token } });
    const owner = await t.app.db
      .selectFrom('users')
      .select('id')
      .where('token', '=', first as string)
      .executeTakeFirst();
    expect(owner).toBeUndefined();
  });

  it('gives each rotation a fresh token and leaves other users alone', async () => {
    const user = await createUser(t.app);
    const other = await createUser(t.app);
    for (const { user: u } of [user, other]) {
      await activateSubscription(t.app.db, { userId: u.id, plan: 'premium', now: t.clock.now(), trialDays: 3 });
    }
    const otherToken = await tokenOf(other.user.id);
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'POST', url: ROTATE, headers: user.headers });
      seen.add(res.json().token);
    }
    expect(seen.size).toBe(5);
    expect(await tokenOf(other.user.id)).toBe(otherToken);
  });
});
