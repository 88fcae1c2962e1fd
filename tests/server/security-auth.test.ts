import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_GRACE_MS } from '../../server/features/accounts/sessions.js';
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from '../../server/plugins/auth.js';
import { subscriberWithContacts } from './alerts-fixtures.js';
import { buildTestApp, createUser, dbLabel, TEST_PASSWORD, type TestApp, type TestUser } from './helper.js';

const SECRET = 'test-secret-that-is-long-enough-for-hs256-signing';
/** Two authenticated routes from different features: one hook guards both. */
const PROTECTED = ['/api/emergency/contacts/', '/api/users/me/'];

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token signed like the server's, with claims and key of the test's choosing. */
async function craft(
  claims: Record<string, unknown>,
  options: { secret?: string; alg?: 'HS256' | 'HS512'; iat?: number; exp?: number } = {},
): Promise<string> {
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(options.exp ?? iat + 900)
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

describe(`authentication with hostile tokens (${dbLabel})`, () => {
  let t: TestApp;
  let alice: TestUser;
  let claims: Record<string, unknown>;
  const get = (authorization?: string, url = PROTECTED[0]!) =>
    t.app.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });
  const expect401 = async (authorization?: string) => {
    for (const url of PROTECTED) {
      const res = await get(authorization, url);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        detail: 'Authentication credentials were not provided or are invalid.',
        code: 'not_authenticated',
      });
    }
  };

  beforeAll(async () => {
    t = await buildTestApp();
    alice = await createUser(t.app);
    claims = { typ: 'access', sid: alice.sessionId, sub: alice.user.id, iss: 'alerta' };
  });
  afterAll(async () => {
    await t.close();
  });

  it('accepts the genuine token (so every refusal below is about the token)', async () => {
    for (const url of PROTECTED) expect((await get(alice.headers.authorization, url)).statusCode).toBe(200);
    // The same claims, crafted here with the real secret, are accepted too: the crafting is faithful.
    const iat = Math.floor(t.clock.now() / 1000);
    expect((await get(`Bearer ${await craft(claims, { iat })}`)).statusCode).toBe(200);
  });

  it('refuses a missing, empty or malformed Authorization header', async () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Token abc',
      'Bearer a.b',
      'Bearer ...',
    ]) {
      await expect401(header);
    }
    await expect401(`Bearer ${alice.access} extra`);
    await expect401(`Bearer ${'a'.repeat(8000)}`);
  });

  it('refuses an expired access token', async () => {
    t.clock.advance(ACCESS_TOKEN_TTL_MS + 1000);
    try {
      await expect401(alice.headers.authorization);
    } finally {
      t.clock.advance(-(ACCESS_TOKEN_TTL_MS + 1000));
    }
    const iat = Math.floor(t.clock.now() / 1000) - 3600;
    await expect401(`Bearer ${await craft(claims, { iat, exp: iat + 60 })}`);
  });

  it('refuses a token signed with another secret', async () => {
    const iat = Math.floor(t.clock.now() / 1000);
    await expect401(`Bearer ${await craft(claims, { iat, secret: 'another-secret-that-is-long-enough-for-hs256' })}`);
    await expect401(`Bearer ${await craft(claims, { iat, secret: ''.padEnd(32, 'x') })}`);
  });

  it('refuses alg "none" and other algorithms', async () => {
    const iat = Math.floor(t.clock.now() / 1000);
    const unsecured = new UnsecuredJWT(claims)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 900)
      .encode();
    await expect401(`Bearer ${unsecured}`);
    // Hand-made variants of "none": with a signature, with upper case, with an empty key id.
    const body = b64({ ...claims, iat, exp: iat + 900 });
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      await expect401(`Bearer ${b64({ alg, typ: 'JWT' })}.${body}.`);
      await expect401(`Bearer ${b64({ alg, typ: 'JWT' })}.${body}.${alice.access.split('.')[2]}`);
    }
    await expect401(`Bearer ${await craft(claims, { iat, alg: 'HS512' })}`);
  });

  it('refuses a forged token: claims changed after signing, or a signature moved to other claims', async () => {
    const [header, , signature] = alice.access.split('.');
    const bob = await createUser(t.app);
    const iat = Math.floor(t.clock.now() / 1000);
    const forgedBody = b64({ ...claims, sub: bob.user.id, sid: bob.sessionId, iat, exp: iat + 900 });
    await expect401(`Bearer ${header}.${forgedBody}.${signature}`);
    // One flipped character in the signature.
    const flipped = signature!.startsWith('A') ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    await expect401(`Bearer ${header}.${alice.access.split('.')[1]}.${flipped}`);
  });

  it('refuses genuine signatures over the wrong claims: refresh tokens, other issuers, foreign sessions', async () => {
    const iat = Math.floor(t.clock.now() / 1000);
    // A refresh token is not an access token.
    const refresh = await t.app.tokens.signRefresh(alice.user.id, alice.sessionId, 'jti-1');
    await expect401(`Bearer ${refresh}`);
    await expect401(`Bearer ${await craft({ ...claims, typ: undefined }, { iat })}`);
    await expect401(`Bearer ${await craft({ ...claims, iss: 'someone-else' }, { iat })}`);
    await expect401(`Bearer ${await craft({ ...claims, sid: 'no-such-session' }, { iat })}`);
    // Alice's user id with Bob's live session: the pair must match.
    const bob = await createUser(t.app);
    await expect401(`Bearer ${await craft({ ...claims, sid: bob.sessionId }, { iat })}`);
    await expect401(`Bearer ${await craft({ ...claims, sub: 42 }, { iat })}`);
  });

  it('refuses the token of a revoked session and of a deleted user', async () => {
    const carol = await createUser(t.app);
    expect((await get(carol.headers.authorization)).statusCode).toBe(200);
    await t.app.db
      .updateTable('sessions')
      .set({ revoked_at: t.clock.now() })
      .where('id', '=', carol.sessionId)
      .execute();
    await expect401(carol.headers.authorization);

    const dave = await createUser(t.app);
    await t.app.db.deleteFrom('sessions').where('user_id', '=', dave.user.id).execute();
    await t.app.db.deleteFrom('users').where('id', '=', dave.user.id).execute();
    await expect401(dave.headers.authorization);
  });
});

describe(`authorisation between users (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers another user's contact exactly like an unknown one: 404, never 403, and leaves it in place", async () => {
    const alice = await createUser(t.app);
    const bob = await subscriberWithContacts(t.app, 'basic', [['Maria Silva', '+351912345678']]);
    const [bobsContact] = bob.contactIds;

    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/emergency/contacts/${bobsContact}/`,
      headers: alice.headers,
    });
    const unknown = await t.app.inject({
      method: 'DELETE',
      url: '/api/emergency/contacts/00000000-0000-4000-8000-000000000000/',
      headers: alice.headers,
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe(unknown.body);
    expect(foreign.json()).toEqual({ detail: 'Not found.', code: 'not_found' });

    // Alice's list never shows Bob's contact; Bob still has it.
    const alicesList = await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: alice.headers });
    expect(alicesList.json()).toEqual([]);
    const bobsList = await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: bob.headers });
    expect(bobsList.json().map((c: { id: string }) => c.id)).toEqual([bobsContact]);
  });
});

describe(`sessions: refresh rotation and reuse (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const login = async (username: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/login/',
      payload: { username, password: TEST_PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { access: string; refresh: string };
  };
  const refresh = (token: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/users/auth/refresh/', payload: { refresh: token } });
  const me = (access: string) =>
    t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${access}` } });

  it('refuses an access token, a forged or a wrong-secret token as a refresh token', async () => {
    const { user } = await createUser(t.app);
    const pair = await login(user.username);
    const iat = Math.floor(t.clock.now() / 1000);
    const [, , sig] = pair.refresh.split('.');
    const payload = JSON.parse(Buffer.from(pair.refresh.split('.')[1]!, 'base64url').toString()) as object;
    for (const token of [
      pair.access,
      await craft({ ...payload, iss: 'alerta' }, { iat, secret: 'another-secret-that-is-long-enough-for-hs256' }),
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`,
      `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...payload, sub: 'someone' })}.${sig}`,
      'x'.repeat(5000),
      42,
      null,
    ]) {
      const res = await refresh(token);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json().code).toEqual(expect.any(String));
    }
    // The genuine refresh token still works: none of the above touched the session.
    expect((await refresh(pair.refresh)).statusCode).toBe(200);
  });

  it('rotates the refresh token; reusing an old one revokes the whole login', async () => {
    const { user } = await createUser(t.app);
    const first = await login(user.username);
    const rotated = await refresh(first.refresh);
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json() as { access: string; refresh: string };
    expect(second.refresh).not.toBe(first.refresh);
    expect((await me(second.access)).statusCode).toBe(200);

    // Someone replays the first refresh token (copied before it was used), after the grace for concurrent tabs.
    t.clock.advance(REFRESH_GRACE_MS + 1);
    const replay = await refresh(first.refresh);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ detail: 'Token is invalid or expired', code: 'token_not_valid' });
    // Every token of that login is dead now, the legitimate newer ones included.
    expect((await me(second.access)).statusCode).toBe(401);
    expect((await refresh(second.refresh)).statusCode).toBe(401);
    // Another login of the same user is untouched.
    const other = await login(user.username);
    expect((await me(other.access)).statusCode).toBe(200);
  });

  it('refuses refresh tokens after logout and after they expire', async () => {
    const { user } = await createUser(t.app);
    const pair = await login(user.username);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/logout/',
      headers: { authorization: `Bearer ${pair.access}` },
    });
    expect(out.statusCode).toBe(204);
    expect((await refresh(pair.refresh)).statusCode).toBe(401);
    expect((await me(pair.access)).statusCode).toBe(401);

    const late = await login(user.username);
    t.clock.advance(REFRESH_TOKEN_TTL_MS + 1000);
    try {
      expect((await refresh(late.refresh)).statusCode).toBe(401);
    } finally {
      t.clock.advance(-(REFRESH_TOKEN_TTL_MS + 1000));
    }
  });
});

describe(`alert links: other users' alerts and rotated tokens (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A premium subscriber with one contact, and their token. */
  const subscriber = () =>
    subscriberWithContacts(t.app, 'premium', [
      ['TEST Rui', `+3519133${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`],
    ]);
  const sendTest = (token: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode: 'test', location: null, location_error: 'denied' },
    });

  it("answers another user's alert through one's own link with 404, as for an unknown alert", async () => {
    const alice = await subscriber();
    const bob = await subscriber();
    const bobsAlert = await sendTest(bob.token);
    expect(bobsAlert.statusCode).toBe(201);
    const { id, public_id: publicId } = bobsAlert.json() as { id: string; public_id: string };

    for (const ref of [id, publicId]) {
      const foreign = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${alice.token}/alerts/${ref}/` });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().code).toBe('not_found');
    }
    const unknown = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${alice.token}/alerts/00000000-0000-4000-8000-000000000000/`,
    });
    const foreign = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${alice.token}/alerts/${id}/` });
    expect(foreign.body).toBe(unknown.body);
    // Bob's own link still shows it.
    const own = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${bob.token}/alerts/${id}/` });
    expect(own.statusCode).toBe(200);
    // Alice's history never lists Bob's alert.
    const history = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: alice.headers });
    expect(history.statusCode).toBe(200);
    expect(JSON.stringify(history.json())).not.toContain(id);
    await t.app.dispatcher.drain();
  });

  it('ends a leaked link at once when the token is rotated: page, sending and status all 404', async () => {
    const owner = await subscriber();
    const before = await sendTest(owner.token);
    expect(before.statusCode).toBe(201);
    const alertId = before.json().id as string;

    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/users/token/rotate/',
      headers: owner.headers,
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().token as string;
    expect(fresh).not.toBe(owner.token);

    const sentBefore = await t.app.db.selectFrom('deliveries').select('id').execute();
    for (const res of [
      await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` }),
      await sendTest(owner.token),
      await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/alerts/${alertId}/` }),
      await t.app.inject({ method: 'GET', url: `/public/${owner.token}/manifest.webmanifest` }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    // The old link sent nothing; the new one works.
    expect(await t.app.db.selectFrom('deliveries').select('id').execute()).toHaveLength(sentBefore.length);
    expect((await t.app.inject({ method: 'GET', url: `/api/emergency/public/${fresh}/` })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/emergency/public/${fresh}/alerts/${alertId}/` })).statusCode,
    ).toBe(200);
    await t.app.dispatcher.drain();
  });
});

describe(`location privacy: what a leaked emergency link shows (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.app.dispatcher.drain();
    await t.close();
  });

  it('never reveals where the owner is or was to someone holding only the link', async () => {
    const owner = await subscriberWithContacts(t.app, 'premium', [['Rui Costa', '+351934567890']]);
    const { token } = owner;
    const where = { latitude: 41.14961, longitude: -8.61099, accuracy: 7, captured_at: t.clock.now() };
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode: 'real', location: where },
    });
    expect(sent.statusCode).toBe(201);
    const id = sent.json().id as string;
    // The owner's own history (logged in) has the position: it was stored.
    const history = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: owner.headers });
    expect(history.body).toContain('41.14961');

    for (const url of [
      `/api/emergency/public/${token}/`,
      `/api/emergency/public/${token}/alerts/${id}/`,
      `/api/emergency/public/${token}/alerts/${id}/live/`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toMatch(/41\.149|8\.610|latitude|longitude/);
    }
  });
});
