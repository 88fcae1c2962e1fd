import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_BURST } from '../../server/features/accounts/mail-bursts.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { newId } from '../../server/lib/ids.js';
import {
  lastMailTo,
  linkIn,
  login,
  NEW_PASSWORD,
  nextIp,
  PASSWORD,
  post,
  registerUser,
  verifiedAccount,
} from './accounts-helpers.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const MINUTE = 60_000;
const GENERIC = { detail: 'If an account uses this e-mail address, a password reset e-mail has been sent.' };
const INVALID_TOKEN = { detail: 'Invalid or expired token.', code: 'invalid_token' };

describe(`accounts: password reset (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const requestReset = (email: unknown, options = {}) => post(t, '/api/users/reset-password/', { email }, options);
  /**
   * Requests a reset for the address and returns the uid and token of the mailed link: a new
   * burst each time, since within one only the first request is mailed at once.
   */
  async function resetLinkFor(email: string) {
    t.clock.advance(MAIL_BURST.spacingMs);
    expect((await requestReset(email)).statusCode).toBe(200);
    const link = linkIn(lastMailTo(t, email).text);
    const match = link.match(/^http:\/\/alerta\.test\/reset-password-confirm\/([^/]+)\/([A-Za-z0-9_-]+)$/);
    expect(match, link).not.toBeNull();
    return { uid: decodeURIComponent(match![1]!), token: match![2]! };
  }
  const confirm = (body: Record<string, unknown>) =>
    post(t, '/api/users/reset-password-confirm/', {
      new_password1: NEW_PASSWORD,
      new_password2: NEW_PASSWORD,
      ...body,
    });

  it('gives the same answer for known and unknown addresses and mails only the account', async () => {
    await verifiedAccount(t, { username: 'hugo' });
    const before = t.app.outbox.emails.length;
    const unknown = await requestReset('nobody@example.com');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(GENERIC);
    expect(t.app.outbox.emails.length).toBe(before);

    const known = await requestReset('HUGO@example.com', { headers: { 'accept-language': 'en' } });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(GENERIC);
    const mail = lastMailTo(t, 'hugo@example.com');
    expect(mail.subject).toBe('Reset your Alerta password');
    expect(mail.text).toContain('1 hour');
    expect(mail.html).toContain(`href="${linkIn(mail.text)}"`);
    // Without a header the user's saved language (pt) is used (in a later burst: one is mailed at once).
    t.clock.advance(MAIL_BURST.spacingMs);
    await requestReset('hugo@example.com');
    expect(lastMailTo(t, 'hugo@example.com').subject).toBe('Redefinir a sua palavra-passe do Alerta');
  });

  it('answers missing, blank and malformed addresses with the field text and a detail', async () => {
    const res = await post(t, '/api/users/reset-password/', {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'required',
      codes: { email: 'required' },
      email: ['This field is required.'],
      detail: 'This field is required.',
    });
    expect((await requestReset('')).json().detail).toBe('This field may not be blank.');
    expect((await requestReset('bad@')).json().email).toEqual(['Enter a valid email address.']);
  });

  it('sets the new password once: the old one fails, the new one works, every session ends', async () => {
    const account = await verifiedAccount(t, { username: 'iris' });
    const { uid, token } = await resetLinkFor('iris@example.com');
    const res = await confirm({ uid, token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ detail: 'Password has been reset with the new password.' });

    expect((await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: account.auth })).statusCode).toBe(401);
    expect((await post(t, '/api/users/auth/refresh/', { refresh: account.refresh })).statusCode).toBe(401);
    expect((await login(t, 'iris', PASSWORD)).statusCode).toBe(401);
    expect((await login(t, 'iris', NEW_PASSWORD)).statusCode).toBe(200);

    const again = await confirm({ uid, token, new_password1: 'Third-Pass-33', new_password2: 'Third-Pass-33' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual(INVALID_TOKEN);
  });

  it('expires links after one hour', async () => {
    await verifiedAccount(t, { username: 'jack' });
    await verifiedAccount(t, { username: 'kate' });
    const late = await resetLinkFor('jack@example.com');
    const onTime = await resetLinkFor('kate@example.com');
    t.clock.advance(60 * MINUTE - 1000);
    expect((await confirm(onTime)).statusCode).toBe(200);
    t.clock.advance(1000);
    const res = await confirm(late);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(INVALID_TOKEN);
  });

  it('invalidates every older link once the password changes', async () => {
    const account = await verifiedAccount(t, { username: 'liam' });
    const first = await resetLinkFor('liam@example.com');
    const second = await resetLinkFor('liam@example.com');
    expect((await confirm(second)).statusCode).toBe(200);
    expect((await confirm(first)).json()).toEqual(INVALID_TOKEN);

    // Any password change, by whatever route, ends the links sent before it.
    const third = await resetLinkFor('liam@example.com');
    t.clock.advance(1000);
    await t.app.db
      .updateTable('users')
      .set({ password_changed_at: t.clock.now() })
      .where('username', '=', account.username)
      .execute();
    expect((await confirm(third)).json()).toEqual(INVALID_TOKEN);
  });

  it('answers an unknown uid with "Invalid user." and a token of another user as invalid', async () => {
    await verifiedAccount(t, { username: 'mia' });
    await verifiedAccount(t, { username: 'ned' });
    const mia = await resetLinkFor('mia@example.com');
    const ned = await resetLinkFor('ned@example.com');
    const unknown = await confirm({ uid: newId(), token: mia.token });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ detail: 'Invalid user.', code: 'invalid_user' });
    expect((await confirm({ uid: mia.uid, token: ned.token })).json()).toEqual(INVALID_TOKEN);
    expect((await confirm({ uid: mia.uid, token: 'made-up' })).json()).toEqual(INVALID_TOKEN);
  });

  it('applies the password rules without spending the link', async () => {
    await verifiedAccount(t, { username: 'olga' });
    const link = await resetLinkFor('olga@example.com');
    const short = await confirm({ ...link, new_password1: '9731', new_password2: '9731' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({
      code: 'password_too_short',
      codes: { new_password1: 'password_too_short' },
      detail: 'This password is too short. It must contain at least 8 characters.',
      new_password1: [
        'This password is too short. It must contain at least 8 characters.',
        'This password is entirely numeric.',
      ],
    });
    expect((await confirm({ ...link, new_password1: 'password1', new_password2: 'password1' })).json().detail).toBe(
      'This password is too common.',
    );
    const mismatch = await confirm({ ...link, new_password2: 'Other-Pass-12' });
    expect(mismatch.json().new_password2).toEqual(["The two password fields didn't match."]);
    expect((await confirm(link)).statusCode).toBe(200);
  });

  it('requires every field', async () => {
    const res = await post(t, '/api/users/reset-password-confirm/', { uid: '', new_password1: ' ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      uid: ['This field may not be blank.'],
      token: ['This field is required.'],
      new_password1: ['This field may not be blank.'],
      new_password2: ['This field is required.'],
    });
  });

  it('verifies the address of an unverified account that resets its password', async () => {
    await registerUser(t, { username: 'pia' });
    expect((await login(t, 'pia')).statusCode).toBe(403);
    expect((await confirm(await resetLinkFor('pia@example.com'))).statusCode).toBe(200);
    expect((await login(t, 'pia', NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('limits reset requests to 5 an hour per address and per client', async () => {
    for (let i = 0; i < 5; i += 1) expect((await requestReset('flood@example.com')).statusCode).toBe(200);
    const byAddress = await requestReset('Flood@example.com');
    expect(byAddress.statusCode).toBe(429);
    expect(Number(byAddress.headers['retry-after'])).toBeGreaterThan(0);

    const ip = nextIp();
    for (let i = 0; i < 5; i += 1) expect((await requestReset(`r${i}@example.com`, { ip })).statusCode).toBe(200);
    expect((await requestReset('r5@example.com', { ip })).statusCode).toBe(429);
  });
});

describe(`accounts: deletion (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('deletes the user and everything of theirs; the old tokens stop working at once', async () => {
    const account = await verifiedAccount(t, { username: 'quinn' });
    const keep = await verifiedAccount(t, { username: 'rosa' });
    const { id } = await t.app.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'quinn')
      .executeTakeFirstOrThrow();
    await activateSubscription(t.app.db, { userId: id, plan: 'basic', now: t.clock.now() });
    await t.app.db
      .insertInto('contacts')
      .values({ id: newId(), user_id: id, name: 'Mãe', phone_number: '+351912345678', relationship: '', created_at: 0 })
      .execute();
    await post(t, '/api/users/reset-password/', { email: 'quinn@example.com' });

    const res = await t.app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: account.auth });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    for (const table of ['contacts', 'subscriptions', 'sessions', 'one_time_tokens'] as const) {
      const rows = await t.app.db.selectFrom(table).select('user_id').where('user_id', '=', id).execute();
      expect(rows, table).toHaveLength(0);
    }
    expect(await t.app.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: account.auth })).statusCode).toBe(401);
    expect((await post(t, '/api/users/auth/refresh/', { refresh: account.refresh })).statusCode).toBe(401);
    expect((await login(t, 'quinn')).statusCode).toBe(401);
    // Another account is untouched, and the freed name can be registered again.
    expect((await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: keep.auth })).statusCode).toBe(200);
    expect((await registerUser(t, { username: 'quinn' })).statusCode).toBe(201);
  });

  it('requires authentication', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/users/delete-account/' });
    expect(res.statusCode).toBe(401);
  });
});
