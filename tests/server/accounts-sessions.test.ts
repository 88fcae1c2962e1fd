import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_GRACE_MS } from '../../server/features/accounts/sessions.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { login, nextIp, PASSWORD, post, verifiedAccount } from './accounts-helpers.js';
import { buildTestApp, dbLabel, moveTime, NO_SUBSCRIPTION, PREMIUM_TRIAL, type TestApp } from './helper.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const INVALID = { detail: 'No active account found with the given credentials', code: 'no_active_account' };
const BAD_REFRESH = { detail: 'Token is invalid or expired', code: 'token_not_valid' };

describe(`accounts: login, refresh and /me (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const me = (authorization: string) =>
    t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${authorization}` } });
  const refresh = (token: unknown, ip?: string) =>
    post(t, '/api/users/auth/refresh/', { refresh: token }, ip === undefined ? {} : { ip });

  it('logs in by username or e-mail in any case, recording a session and its refresh token', async () => {
    const account = await verifiedAccount(t, { username: 'Carla', email: 'Carla@Example.com' });
    for (const identifier of ['carla', 'CARLA', ' carla@example.com ', 'CARLA@EXAMPLE.COM']) {
      const res = await login(t, identifier);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['access', 'refresh']);
      expect((await me(body.access)).json().username).toBe('carla');
    }
    const user = await t.app.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'carla')
      .executeTakeFirstOrThrow();
    const sessions = await t.app.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute();
    expect(sessions).toHaveLength(5);
    const refreshRows = await t.app.db
      .selectFrom('refresh_tokens')
      .selectAll()
      .where(
        'session_id',
        'in',
        sessions.map((s) => s.id),
      )
      .execute();
    expect(refreshRows).toHaveLength(5);
    expect(refreshRows[0]!.expires_at).toBe(t.clock.now() + 30 * DAY);
    expect(account.access).toBeTruthy();
  });

  it('answers a wrong password and an unknown user with the same 401', async () => {
    await verifiedAccount(t, { username: 'dora' });
    const wrong = await login(t, 'dora', 'Wrong-Pass-99');
    const unknown = await login(t, 'nobody-here', PASSWORD);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(INVALID);
    expect(unknown.json()).toEqual(INVALID);
  });

  it('answers blank and missing fields with 400', async () => {
    const res = await post(t, '/api/users/auth/login/', { username: ' ', password: '' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'blank',
      codes: { username: 'blank', password: 'blank' },
      username: ['This field may not be blank.'],
      password: ['This field may not be blank.'],
    });
    expect((await post(t, '/api/users/auth/login/', {})).json().password).toEqual(['This field is required.']);
  });

  it('blocks one address for 15 minutes after 5 failures; the owner elsewhere still logs in', async () => {
    await verifiedAccount(t, { username: 'eve' });
    const attacker = nextIp();
    moveTime(t, 0);
    for (const identifier of ['eve', 'EVE', 'eve', 'Eve', 'eve']) {
      expect((await login(t, identifier, 'Wrong-Pass-99', { ip: attacker })).statusCode).toBe(401);
    }
    const blocked = await login(t, 'eve', PASSWORD, { ip: attacker });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBe(15 * 60);
    expect(blocked.json().code).toBe('throttled');
    expect((await login(t, 'eve', PASSWORD, { ip: nextIp() })).statusCode).toBe(200);
    moveTime(t, 15 * MINUTE);
    expect((await login(t, 'eve', PASSWORD, { ip: attacker })).statusCode).toBe(200);
  });

  it('allows 10 login attempts a minute per client address', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i += 1) expect((await login(t, `ghost${i}`, PASSWORD, { ip })).statusCode).toBe(401);
    const res = await login(t, 'ghost10', PASSWORD, { ip });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('expires access tokens after 15 minutes; refresh gives a working new pair', async () => {
    const account = await verifiedAccount(t);
    t.clock.advance(15 * MINUTE + 1000);
    expect((await me(account.access)).statusCode).toBe(401);
    const res = await refresh(account.refresh);
    expect(res.statusCode).toBe(200);
    const pair = res.json();
    expect(Object.keys(pair).sort()).toEqual(['access', 'refresh']);
    expect(pair.refresh).not.toBe(account.refresh);
    expect((await me(pair.access)).statusCode).toBe(200);
  });

  it('rotates refresh tokens; replaying a used one revokes that login but not the others', async () => {
    const account = await verifiedAccount(t, { username: 'fred' });
    const other = (await login(t, 'fred')).json();
    const first = (await refresh(account.refresh)).json();
    const second = (await refresh(first.refresh)).json();
    expect((await me(second.access)).statusCode).toBe(200);

    // A stolen copy of the first refresh token is replayed (after the grace for concurrent tabs).
    t.clock.advance(REFRESH_GRACE_MS + 1);
    const replay = await refresh(account.refresh);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual(BAD_REFRESH);
    expect((await me(second.access)).statusCode).toBe(401);
    expect((await refresh(second.refresh)).statusCode).toBe(401);
    // The other login of the same user is untouched.
    expect((await me(other.access)).statusCode).toBe(200);
    expect((await refresh(other.refresh)).statusCode).toBe(200);
  });

  it('gives two tabs refreshing with one token the same new pair, once; later, or after the successor is used, it is a reuse', async () => {
    const account = await verifiedAccount(t);
    // Two tabs of one browser (one address) hold the same refresh token and both refresh it.
    const browser = nextIp();
    const [tabA, tabB] = await Promise.all([refresh(account.refresh, browser), refresh(account.refresh, browser)]);
    expect([tabA.statusCode, tabB.statusCode]).toEqual([200, 200]);
    // The same successor (its id), signed anew.
    const jti = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti;
    expect(jti(tabA.json().refresh)).toBe(jti(tabB.json().refresh));
    for (const pair of [tabA.json(), tabB.json()]) expect((await me(pair.access)).statusCode).toBe(200);
    // The grace answers once: a third presentation is a copy, and the login ends.
    expect((await refresh(account.refresh, browser)).json()).toEqual(BAD_REFRESH);
    expect((await me(tabA.json().access)).statusCode).toBe(401);

    // An answer lost on the network: the same token again, 29 s later, gets the same successor.
    const lost = await verifiedAccount(t);
    const first = await refresh(lost.refresh, browser);
    t.clock.advance(REFRESH_GRACE_MS - 1000);
    const again = await refresh(lost.refresh, browser);
    expect(again.statusCode).toBe(200);
    expect(jti(again.json().refresh)).toBe(jti(first.json().refresh));
    // The successor is used: the old token is now a copy, and the login ends.
    const next = (await refresh(again.json().refresh, browser)).json();
    expect((await refresh(lost.refresh, browser)).json()).toEqual(BAD_REFRESH);
    expect((await me(next.access)).statusCode).toBe(401);

    // Past the grace, presenting a replaced token also ends the login.
    const other = await verifiedAccount(t);
    const rotated = (await refresh(other.refresh, browser)).json();
    t.clock.advance(REFRESH_GRACE_MS + 1);
    expect((await refresh(other.refresh, browser)).statusCode).toBe(401);
    expect((await refresh(rotated.refresh, browser)).statusCode).toBe(401);
  });

  it('refuses expired, malformed and access tokens as refresh tokens', async () => {
    const account = await verifiedAccount(t);
    for (const token of ['garbage', account.access, 42]) {
      const res = await refresh(token);
      expect(res.statusCode).toBe(token === 42 ? 400 : 401);
    }
    expect((await post(t, '/api/users/auth/refresh/', {})).json().refresh).toEqual(['This field is required.']);
    t.clock.advance(30 * DAY + 1000);
    const expired = await refresh(account.refresh);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(BAD_REFRESH);
  });

  it('answers /me with the user and profile fields, before and after a subscription', async () => {
    const account = await verifiedAccount(t, { username: 'gina' });
    const res = await me(account.access);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      username: 'gina',
      email: 'gina@example.com',
      language: 'pt',
      display_name: null,
      time_zone: null,
      token: null,
      has_checkin_pin: false,
      has_duress_pin: false,
      escalation_after_seconds: 300,
      profile: { ...NO_SUBSCRIPTION, alert_countdown_seconds: 5, token: null },
    });
    await activateSubscription(t.app.db, { userId: body.id, plan: 'premium', now: t.clock.now(), trialDays: 3 });
    const after = (await me(account.access)).json();
    expect(after.token).toEqual(expect.any(String));
    expect(after.profile).toMatchObject({ ...PREMIUM_TRIAL, contact_limit: 10, gps_enabled: true, token: after.token });
  });

  it('changes language and countdown with PATCH and refuses other values', async () => {
    const account = await verifiedAccount(t);
    const patch = (payload: unknown) =>
      t.app.inject({ method: 'PATCH', url: '/api/users/me/', headers: account.auth, payload: payload as object });
    const ok = await patch({ language: 'en', alert_countdown_seconds: 10, username: 'hijack' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ username: account.username, language: 'en' });
    expect(ok.json().profile.alert_countdown_seconds).toBe(10);
    expect((await patch({ alert_countdown_seconds: 0 })).json().profile.alert_countdown_seconds).toBe(0);

    const bad = await patch({ language: 'fr', alert_countdown_seconds: 7 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      code: 'invalid_choice',
      codes: { language: 'invalid_choice', alert_countdown_seconds: 'invalid_choice' },
      language: ['"fr" is not a valid choice.'],
      alert_countdown_seconds: ['"7" is not a valid choice.'],
    });
    expect((await me(account.access)).json()).toMatchObject({
      language: 'en',
      profile: { alert_countdown_seconds: 0 },
    });
    const anon = await t.app.inject({ method: 'PATCH', url: '/api/users/me/', payload: { language: 'pt' } });
    expect(anon.statusCode).toBe(401);
  });

  it('ends a login on logout: its access and refresh tokens stop working', async () => {
    const account = await verifiedAccount(t);
    const res = await t.app.inject({ method: 'POST', url: '/api/users/auth/logout/', headers: account.auth });
    expect(res.statusCode).toBe(204);
    expect((await me(account.access)).statusCode).toBe(401);
    expect((await refresh(account.refresh)).statusCode).toBe(401);
  });
});
