import { describe, expect, it } from 'vitest';
import { WRONG_PASSWORD } from '../../common/api/accounts.js';
import { PASSWORD_ERRORS } from '../../common/password-rules.js';
import { linkIn, login, nextIp, post } from './accounts-helpers.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { type Headers, issueKey, keyProof, sendAlert, signInWithRefresh } from './device-key-fixtures.js';
import { dbLabel, suiteApp, TEST_PASSWORD, type TestApp } from './helper.js';

const URL = '/api/users/me/password/';
const NEW_PASSWORD = 'Changed-Pass-93';

const change = (t: TestApp, headers: Headers, body: Record<string, unknown>, ip = nextIp()) =>
  post(t, URL, body, { headers, ip });

const asked = (current: string, next = NEW_PASSWORD) => ({
  current_password: current,
  new_password1: next,
  new_password2: next,
});

const me = (t: TestApp, headers: Headers) => t.app.inject({ method: 'GET', url: '/api/users/me/', headers });

describe(`changing the password while signed in (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const owner = () => {
    n += 1;
    return ownerWithContacts(t.app, { contacts: [['Ana', `+35196330${String(n).padStart(4, '0')}`]] });
  };

  it('ends every other login and every key they issued; this login, its refresh token and its key go on', async () => {
    const o = await owner();
    const here = await signInWithRefresh(t, o);
    const there = await signInWithRefresh(t, o);
    const hereKey = await issueKey(t, here.headers);
    const thereKey = await issueKey(t, there.headers);

    const res = await change(t, here.headers, asked(TEST_PASSWORD));
    expect(res.statusCode, res.body).toBe(204);

    // The other login: its access token, its refresh token and its device key are refused.
    expect((await me(t, there.headers)).statusCode).toBe(401);
    expect((await post(t, '/api/users/auth/refresh/', { refresh: there.refresh })).statusCode).toBe(401);
    expect((await sendAlert(t, o, keyProof(thereKey), nextIp())).proven).toBe(false);
    // A login older than the change, not made through this one, ends too.
    expect((await me(t, o.headers)).statusCode).toBe(401);

    // This login goes on: its access, its refresh token and its own key.
    expect((await me(t, here.headers)).statusCode).toBe(200);
    expect((await post(t, '/api/users/auth/refresh/', { refresh: here.refresh })).statusCode).toBe(200);
    expect((await sendAlert(t, o, keyProof(hereKey), nextIp())).proven).toBe(true);

    // The new password signs in; the old one no longer does.
    expect((await login(t, o.user.username, TEST_PASSWORD)).statusCode).toBe(401);
    expect((await login(t, o.user.username, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('a wrong current password is a 400 on current_password, and nothing changes', async () => {
    const o = await owner();
    const here = await signInWithRefresh(t, o);
    const there = await signInWithRefresh(t, o);
    const thereKey = await issueKey(t, there.headers);

    const res = await change(t, here.headers, asked('Not-The-Pass-11'));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      current_password: [WRONG_PASSWORD],
      code: 'wrong_password',
      codes: { current_password: 'wrong_password' },
    });

    expect((await me(t, there.headers)).statusCode).toBe(200);
    expect((await sendAlert(t, o, keyProof(thereKey), nextIp())).proven).toBe(true);
    expect((await login(t, o.user.username, TEST_PASSWORD)).statusCode).toBe(200);
    expect((await login(t, o.user.username, NEW_PASSWORD)).statusCode).toBe(401);
  });

  it('the new password follows the registration rules (the server list too), each a 400 on its field', async () => {
    const o = await owner();
    // With a wrong current password too: the rules answer first, and spend no guess.
    const wrong = 'Not-The-Pass-11';
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [asked(wrong, 'short1'), { new_password1: [PASSWORD_ERRORS.tooShort] }],
      [asked(wrong, 'no-digits-here'), { new_password1: [PASSWORD_ERRORS.noDigit] }],
      // On the server's list of common passwords, which the page does not carry.
      [asked(wrong, 'password123'), { new_password1: [PASSWORD_ERRORS.tooCommon] }],
      [{ ...asked(wrong), new_password2: 'Other-Pass-12' }, { new_password2: [PASSWORD_ERRORS.mismatch] }],
      [{ new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD }, { current_password: expect.any(Array) }],
      [{ ...asked(TEST_PASSWORD), current_password: 7 }, { current_password: expect.any(Array) }],
    ];
    const ip = nextIp();
    for (const [body, fields] of [...cases, ...cases]) {
      const res = await change(t, o.headers, body, ip);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(fields);
    }
    expect((await login(t, o.user.username, TEST_PASSWORD, { ip })).statusCode).toBe(200);
  });

  it('wrong current passwords count under the login limits: the sixth from one address is a 429', async () => {
    const o = await owner();
    const ip = nextIp();
    for (let i = 0; i < 5; i += 1) {
      expect((await change(t, o.headers, asked(`Wrong-Guess-${i}0`), ip)).statusCode).toBe(400);
    }
    const locked = await change(t, o.headers, asked(TEST_PASSWORD), ip);
    expect(locked.statusCode, locked.body).toBe(429);
    expect(locked.json()).toMatchObject({ code: 'throttled' });
    // The same counter as the login form's: that address cannot guess there either.
    expect((await login(t, o.user.username, TEST_PASSWORD, { ip })).statusCode).toBe(429);
    // From elsewhere the owner still changes it.
    expect((await change(t, o.headers, asked(TEST_PASSWORD))).statusCode).toBe(204);
  });

  it('forty wrong current passwords at once from one address: five are read, the rest 429; the login form too', async () => {
    const o = await owner();
    const ip = nextIp();
    const guesses = Array.from({ length: 40 }, (_, i) => change(t, o.headers, asked(`Wrong-Guess-${i}0`), ip));
    const codes = (await Promise.all(guesses)).map((res) => res.statusCode);
    expect(codes.filter((code) => code === 400)).toHaveLength(5);
    expect(codes.filter((code) => code === 429)).toHaveLength(35);
    // The login form's guesses at once from another address (its own limit lets ten through): five read.
    const there = nextIp();
    const logins = Array.from({ length: 10 }, (_, i) => login(t, o.user.username, `Wrong-Guess-${i}1`, { ip: there }));
    const loginCodes = (await Promise.all(logins)).map((res) => res.statusCode);
    expect(loginCodes.filter((code) => code === 401)).toHaveLength(5);
    // The owner, from elsewhere, still changes it.
    expect((await change(t, o.headers, asked(TEST_PASSWORD))).statusCode).toBe(204);
  });

  it('needs a live login, and a reset link sent before the change no longer works', async () => {
    const o = await owner();
    expect((await post(t, URL, asked(TEST_PASSWORD))).statusCode).toBe(401);

    expect((await post(t, '/api/users/reset-password/', { email: o.user.email })).statusCode).toBe(200);
    const mail = t.app.outbox.emails.find((e) => e.to === o.user.email && e.text.includes('/reset-password-confirm/'));
    const [, , uid, token] = new globalThis.URL(linkIn(mail?.text ?? '')).pathname.split('/');
    t.clock.advance(1000);
    expect((await change(t, o.headers, asked(TEST_PASSWORD))).statusCode).toBe(204);

    const reset = await post(t, '/api/users/reset-password-confirm/', {
      uid: decodeURIComponent(uid ?? ''),
      token,
      new_password1: 'Someone-Else-44',
      new_password2: 'Someone-Else-44',
    });
    expect(reset.statusCode, reset.body).toBe(400);
    expect((await login(t, o.user.username, NEW_PASSWORD)).statusCode).toBe(200);
  });
});
