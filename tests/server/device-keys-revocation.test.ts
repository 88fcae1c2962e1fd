import { describe, expect, it } from 'vitest';
import { deviceName } from '../../server/features/accounts/device-names.js';
import { notMeKeyFor } from '../../server/features/alerts/owner-mail.js';
import { linkIn, login, nextIp, post } from './accounts-helpers.js';
import { type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { ANDROID_CHROME, type Headers, issueKey, keyProof, sendAlert, signIn, tokenOf } from './device-key-fixtures.js';
import { createUser, dbLabel, suiteApp, TEST_PASSWORD, type TestApp } from './helper.js';

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** "I'm safe" with the all-clear SMS, on the owner's current link. */
async function allClear(t: TestApp, owner: Owner, alertId: string, proof: Headers, ip: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/emergency/public/${await tokenOf(t, owner)}/alerts/${alertId}/resolve/`,
    headers: proof,
    payload: { notify: true },
    remoteAddress: ip,
  });
}

const resolvedAt = async (t: TestApp, alertId: string) =>
  (await t.app.db.selectFrom('alerts').select('resolved_at').where('id', '=', alertId).executeTakeFirstOrThrow())
    .resolved_at;

/** Sets a new password through the reset e-mail's link. */
async function resetPassword(t: TestApp, owner: Owner, password: string): Promise<void> {
  expect((await post(t, '/api/users/reset-password/', { email: owner.user.email })).statusCode).toBe(200);
  // The owner's alert receipts go to the same address, and may land after it.
  const mail = t.app.outbox.emails.find(
    (e) => e.to === owner.user.email && e.text.includes('/reset-password-confirm/'),
  );
  const link = new URL(linkIn(mail?.text ?? ''));
  const [, , uid, token] = link.pathname.split('/');
  const body = { uid: decodeURIComponent(uid ?? ''), token, new_password1: password, new_password2: password };
  const reset = await post(t, '/api/users/reset-password-confirm/', body);
  expect(reset.statusCode, reset.body).toBe(200);
}

const NEW_PASSWORD = 'Taken-Back-Pass-58';

/**
 * Each way a device key is taken back, done by the owner with the login that issued it. Returns
 * the password the owner signs in with afterwards.
 */
const TAKE_BACK: [string, (t: TestApp, owner: Owner, device: Headers) => Promise<string>][] = [
  [
    '(a) removed from Setup',
    async (t, owner, device) => {
      const list = await t.app.inject({ method: 'GET', url: '/api/users/me/devices/', headers: owner.headers });
      const [only] = list.json() as { id: string }[];
      const res = await t.app.inject({ method: 'DELETE', url: `/api/users/me/devices/${only?.id}/`, headers: device });
      expect(res.statusCode).toBe(204);
      return TEST_PASSWORD;
    },
  ],
  [
    '(b) logging out on that device',
    async (t, _owner, device) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/users/auth/logout/', headers: device });
      expect(res.statusCode).toBe(204);
      return TEST_PASSWORD;
    },
  ],
  [
    '(c) new links',
    async (t, owner) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/users/token/rotate/', headers: owner.headers });
      expect(res.statusCode).toBe(200);
      return TEST_PASSWORD;
    },
  ],
  [
    '(d) "this wasn\'t me" from the alert e-mail',
    async (t, owner) => {
      const key = await notMeKeyFor(t.app, owner.user.id);
      const res = await t.app.inject({ method: 'POST', url: `/api/users/not-me/${key}/`, remoteAddress: nextIp() });
      expect(res.statusCode).toBe(200);
      return TEST_PASSWORD;
    },
  ],
  [
    '(e) log out everywhere',
    async (t, owner) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/users/auth/logout-all/', headers: owner.headers });
      expect(res.statusCode).toBe(204);
      return TEST_PASSWORD;
    },
  ],
  [
    '(f) a password reset',
    async (t, owner) => {
      await resetPassword(t, owner, NEW_PASSWORD);
      return NEW_PASSWORD;
    },
  ],
];

describe(`device keys can be taken back (${dbLabel})`, () => {
  const t = suiteApp();

  it.each(TAKE_BACK)(
    '%s: a copied key gives no false all-clear and no proof; the owner signs in again and the new key works',
    async (_name, takeBack) => {
      const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200001']] });
      // The owner's phone signs in (the emergency page's sign-in) and gets its key; a thief copies it.
      const device = await signIn(t, owner);
      const copied = await issueKey(t, device);
      const thief = nextIp();
      const proven = await sendAlert(t, owner, keyProof(copied), nextIp());
      expect(proven.proven).toBe(true);

      const password = await takeBack(t, owner, device);

      // The thief, with the link and the copied key: no false all-clear, and no proof.
      const refused = await allClear(t, owner, proven.id, keyProof(copied), thief);
      expect([403, 404], refused.body).toContain(refused.statusCode);
      expect(await resolvedAt(t, proven.id)).toBeNull();
      expect((await sendAlert(t, owner, keyProof(copied), thief)).proven).toBe(false);

      // The owner signs in again on the phone, from the same address, and the new key proves them.
      const again = await signIn(t, owner, password);
      const renewed = await issueKey(t, again);
      const ended = await allClear(t, owner, proven.id, keyProof(renewed), thief);
      expect(ended.statusCode, ended.body).toBe(200);
      expect(ended.json()).toMatchObject({ state: 'resolved' });
      expect(await resolvedAt(t, proven.id)).not.toBeNull();
      expect((await sendAlert(t, owner, keyProof(renewed), thief)).proven).toBe(true);
    },
  );

  it("logging out ends only the keys that login issued: the owner's other phone keeps its own", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200002']] });
    const phone = await signIn(t, owner);
    const tablet = await signIn(t, owner);
    const phoneKey = await issueKey(t, phone);
    const tabletKey = await issueKey(t, tablet, IPHONE_SAFARI);
    expect((await t.app.inject({ method: 'POST', url: '/api/users/auth/logout/', headers: phone })).statusCode).toBe(
      204,
    );
    const ip = nextIp();
    expect((await sendAlert(t, owner, keyProof(phoneKey), ip)).proven).toBe(false);
    expect((await sendAlert(t, owner, keyProof(tabletKey), ip)).proven).toBe(true);
  });

  it('a stolen refresh token replayed ends its login and the keys that login issued', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200006']] });
    const signedIn = await login(t, owner.user.username, TEST_PASSWORD, { ip: '10.200.0.1' });
    const { access, refresh } = signedIn.json() as { access: string; refresh: string };
    const key = await issueKey(t, { authorization: `Bearer ${access}` });
    expect((await post(t, '/api/users/auth/refresh/', { refresh }, { ip: '10.200.0.1' })).statusCode).toBe(200);
    // The replaced token again, from elsewhere: a copy.
    expect((await post(t, '/api/users/auth/refresh/', { refresh }, { ip: '10.200.0.2' })).statusCode).toBe(401);
    expect((await sendAlert(t, owner, keyProof(key), nextIp())).proven).toBe(false);
  });

  it('"log out everywhere" ends every login too, this one included', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200003']] });
    const other = await signIn(t, owner);
    const res = await t.app.inject({ method: 'POST', url: '/api/users/auth/logout-all/', headers: owner.headers });
    expect(res.statusCode).toBe(204);
    for (const headers of [owner.headers, other]) {
      expect((await t.app.inject({ method: 'GET', url: '/api/users/me/', headers })).statusCode).toBe(401);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/users/auth/logout-all/' })).statusCode).toBe(401);
  });
});

describe(`the owner's devices in Setup (${dbLabel})`, () => {
  const t = suiteApp();

  it('lists each key with its name, creation, last use and whether this login issued it', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200004']] });
    const phone = await signIn(t, owner);
    const phoneKey = await issueKey(t, phone, ANDROID_CHROME);
    t.clock.advance(60_000);
    await issueKey(t, owner.headers, IPHONE_SAFARI);
    t.clock.advance(60_000);
    await sendAlert(t, owner, keyProof(phoneKey), nextIp());

    const res = await t.app.inject({ method: 'GET', url: '/api/users/me/devices/', headers: phone });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const [used, unused, ...rest] = res.json() as Record<string, unknown>[];
    expect(rest).toEqual([]);
    expect(used).toEqual({
      id: expect.any(String),
      name: 'Chrome · Android',
      created_at: new Date(t.clock.now() - 120_000).toISOString(),
      last_used_at: new Date(t.clock.now()).toISOString(),
      current: true,
    });
    expect(unused).toMatchObject({ name: 'Safari · iPhone', last_used_at: null, current: false });
    // The key itself is never shown again.
    expect(res.body).not.toContain(phoneKey);
    expect((await t.app.inject({ method: 'GET', url: '/api/users/me/devices/' })).statusCode).toBe(401);
  });

  it("refuses to remove another account's key (404, and it keeps working); the owner removes it", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200005']] });
    const stranger = await createUser(t.app);
    const key = await issueKey(t, owner.headers);
    const list = await t.app.inject({ method: 'GET', url: '/api/users/me/devices/', headers: owner.headers });
    const id = (list.json() as { id: string }[])[0]?.id as string;
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me/devices/', headers: stranger.headers })).json(),
    ).toEqual([]);
    for (const url of [
      `/api/users/me/devices/${id}/`,
      '/api/users/me/devices/not-an-id/',
      `/api/users/me/devices/${'x'.repeat(100)}/`,
    ]) {
      const res = await t.app.inject({ method: 'DELETE', url, headers: stranger.headers });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    expect((await t.app.inject({ method: 'DELETE', url: `/api/users/me/devices/${id}/` })).statusCode).toBe(401);
    const ip = nextIp();
    expect((await sendAlert(t, owner, keyProof(key), ip)).proven).toBe(true);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/users/me/devices/${id}/`,
      headers: owner.headers,
    });
    expect(removed.statusCode).toBe(204);
    expect((await sendAlert(t, owner, keyProof(key), ip)).proven).toBe(false);
    const twice = await t.app.inject({ method: 'DELETE', url: `/api/users/me/devices/${id}/`, headers: owner.headers });
    expect(twice.statusCode).toBe(404);
  });
});

describe('device names: from a fixed vocabulary, never the header itself (unit)', () => {
  it.each([
    [ANDROID_CHROME, 'Chrome · Android'],
    [IPHONE_SAFARI, 'Safari · iPhone'],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1',
      'Chrome · iPhone',
    ],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox · Windows'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      'Edge · Windows',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
      'Samsung Internet · Android',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'Safari · Mac',
    ],
    ['<script>alert(1)</script>', null],
    ['curl/8.5.0', null],
    [undefined, null],
  ])('%s → %s', (userAgent, name) => {
    expect(deviceName(userAgent)).toBe(name);
  });
});
