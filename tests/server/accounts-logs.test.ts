import { describe, expect, it } from 'vitest';
import { NEW_PASSWORD, PASSWORD } from './accounts-helpers.js';
import { dbLabel, suiteApp } from './helper.js';

/** The app with its real request logging at trace level, captured in memory. */
describe(`accounts: secrets stay out of the logs (${dbLabel})`, () => {
  const lines: string[] = [];
  const t = suiteApp({}, undefined, { logLines: lines });

  it('logs requests without passwords, verification keys, reset tokens, JWTs or links', async () => {
    const post = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, payload });
      await t.app.background.idle();
      return res;
    };
    await post('/api/users/registration/', {
      username: 'quiet',
      email: 'quiet@example.com',
      password1: PASSWORD,
      password2: PASSWORD,
      accept_terms: true,
    });
    const verifyLink = t.app.outbox.emails[0]!.text.match(/https?:\/\/\S+/)![0];
    const key = verifyLink.split('/').at(-2)!;
    await t.app.inject({ method: 'GET', url: new URL(verifyLink).pathname });
    const tokens = (await post('/api/users/auth/login/', { username: 'quiet', password: PASSWORD })).json();
    await post('/api/users/auth/login/', { username: 'quiet', password: 'Wrong-Pass-99' });
    await post('/api/users/auth/refresh/', { refresh: tokens.refresh });
    await post('/api/users/reset-password/', { email: 'quiet@example.com' });
    const resetLink = t.app.outbox.emails[0]!.text.match(/https?:\/\/\S+/)![0];
    const [, , uid, token] = new URL(resetLink).pathname.split('/');
    const confirmed = await post('/api/users/reset-password-confirm/', {
      uid,
      token,
      new_password1: NEW_PASSWORD,
      new_password2: NEW_PASSWORD,
    });

    expect(confirmed.statusCode).toBe(200);

    const log = lines.join('');
    expect(log.match(/"msg":"incoming request"/g)).toHaveLength(7);
    expect(log).toContain('"url":"/api/users/verify-email/…/"');
    for (const secret of [
      PASSWORD,
      NEW_PASSWORD,
      'Wrong-Pass-99',
      key,
      token!,
      tokens.access,
      tokens.refresh,
      resetLink,
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
