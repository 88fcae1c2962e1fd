import { describe, expect, it } from 'vitest';
import { createThrottles, LOGIN_LIMITS } from '../../server/features/accounts/throttle.js';
import { login, nextIp, PASSWORD, verifiedAccount } from './accounts-helpers.js';
import { alertsOf, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe(`accounts that cannot be abused (${dbLabel})`, () => {
  const t = suiteApp({}, (app) => {
    // Marks when an answer leaves: anything done after it happens an hour "later" on the app clock.
    app.addHook('onSend', async (request) => {
      if (request.headers['x-test-mark'] === 'answered') t.clock.advance(HOUR);
    });
  });

  it('alerts contacts only from an account whose e-mail is verified', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351964000001']] });
    await t.app.db.updateTable('users').set({ email_verified: 0 }).where('id', '=', owner.user.id).execute();
    for (const mode of ['real', 'test'] as const) {
      const res = await postAlert(t.app, owner.token, { mode, location: null });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        code: 'email_not_verified',
        detail: 'Confirm your e-mail address before your contacts can be alerted.',
      });
    }
    expect(await alertsOf(t.app, owner.user.id)).toHaveLength(0);
    await t.app.db.updateTable('users').set({ email_verified: 1 }).where('id', '=', owner.user.id).execute();
    expect((await postAlert(t.app, owner.token, { mode: 'real', location: null })).statusCode).toBe(201);
  });

  it('never locks the owner out from another address; many addresses together only slow the answer down', async () => {
    await verifiedAccount(t, { username: 'target' });
    const attacker = nextIp();
    for (let i = 0; i < 5; i += 1)
      expect((await login(t, 'target', 'Wrong-1234', { ip: attacker })).statusCode).toBe(401);
    expect((await login(t, 'target', PASSWORD, { ip: attacker })).statusCode).toBe(429);
    // The owner, anywhere else, is not affected.
    expect((await login(t, 'target', PASSWORD, { ip: nextIp() })).statusCode).toBe(200);

    // Many addresses together: past 5 failures in the hour the answers wait (up to 3 s), never a 429.
    for (let i = 5; i < 20; i += 1) expect((await login(t, 'target', 'Wrong-1234')).statusCode).toBe(401);
    const before = t.clock.slept.length;
    expect((await login(t, 'target', PASSWORD, { ip: nextIp() })).statusCode).toBe(200);
    expect(t.clock.slept.slice(before)).toEqual([LOGIN_LIMITS.delayMaxMs]);
  });

  it('keeps a lockout while a flood of made-up logins passes through the same counter', async () => {
    const throttles = createThrottles(t.app);
    // What the counter keys a failed login by: the identifier typed and the client address.
    const attempt = (identifier: string) => ({ identifier, ip: '10.77.0.1' });
    for (let i = 0; i < 5; i += 1) await throttles.loginFailures.add(attempt('victim'));
    for (let i = 0; i < 6000; i += 1) await throttles.loginFailures.add(attempt(`made-up-${i}`));
    expect((await throttles.loginFailures.read(attempt('victim'))).count).toBe(5);
  });

  it('says nothing through the lockout about which e-mail belongs to a username', async () => {
    await verifiedAccount(t, { username: 'hidden', email: 'hidden@example.com' });
    const ip = nextIp();
    for (let i = 0; i < 5; i += 1) expect((await login(t, 'hidden', 'Wrong-1234', { ip })).statusCode).toBe(401);
    expect((await login(t, 'hidden', 'Wrong-1234', { ip })).statusCode).toBe(429);
    // Its e-mail, from the same address, answers as any other e-mail does.
    const own = await login(t, 'hidden@example.com', 'Wrong-1234', { ip });
    const stranger = await login(t, 'nobody@example.com', 'Wrong-1234', { ip });
    expect(own.statusCode).toBe(401);
    expect(own.json()).toEqual(stranger.json());
  });

  it('answers a password reset and a resend before looking the address up', async () => {
    await verifiedAccount(t, { username: 'resetme', email: 'resetme@example.com' });
    const answeredAt = t.clock.now();
    for (const [url, email] of [
      ['/api/users/reset-password/', 'resetme@example.com'],
      ['/api/users/reset-password/', 'unknown@example.com'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: { email },
        headers: { 'x-test-mark': 'answered' },
        remoteAddress: nextIp(),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        detail: 'If an account uses this e-mail address, a password reset e-mail has been sent.',
      });
    }
    await t.app.background.idle();
    const [row] = await t.app.db
      .selectFrom('one_time_tokens')
      .innerJoin('users', 'users.id', 'one_time_tokens.user_id')
      .select('one_time_tokens.created_at')
      .where('users.username', '=', 'resetme')
      .where('purpose', '=', 'reset_password')
      .execute();
    // Made after the answer had gone (the clock moved on as it left).
    expect(Number(row?.created_at)).toBeGreaterThanOrEqual(answeredAt + HOUR);
  });
});
