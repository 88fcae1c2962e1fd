import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, dbLabel, outboxJsonPath, type TestApp } from './helper.js';

/** The acceptance journey, through the HTTP API and the dev outbox alone. */
describe(`accounts: the whole journey through the API (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, access?: string) => {
    const res = await t.app.inject({
      method,
      url,
      payload,
      headers: { 'accept-language': 'en', ...(access ? { authorization: `Bearer ${access}` } : {}) },
    });
    // E-mails some answers leave for afterwards (app.background) are out before the next step.
    await t.app.background.idle();
    return res;
  };
  /** The first link of the newest mail to `to`, read from /dev/outbox.json like a person would. */
  async function linkFromOutbox(to: string, subject: string): Promise<URL> {
    const res = await call('GET', outboxJsonPath);
    expect(res.statusCode).toBe(200);
    const mail = (res.json().emails as { to: string; subject: string; text: string; html: string }[]).find(
      (email) => email.to === to && email.subject === subject,
    );
    expect(mail, `${subject} to ${to}`).toBeDefined();
    expect(mail!.html).toContain('<a href=');
    return new URL(mail!.text.match(/https?:\/\/\S+/)![0]);
  }

  it('register → verify → login → /me → refresh → reset → new password → delete', async () => {
    const registration = {
      username: 'Journey',
      email: 'journey@example.com',
      password1: 'Journey-Pass-1',
      password2: 'Journey-Pass-1',
      accept_terms: true,
    };
    expect((await call('POST', '/api/users/registration/', registration)).statusCode).toBe(201);
    const unverified = await call('POST', '/api/users/auth/login/', {
      username: 'journey',
      password: 'Journey-Pass-1',
    });
    expect(unverified.statusCode).toBe(403);
    expect(unverified.json().detail).toBe('email_not_verified');

    const verifyLink = await linkFromOutbox('journey@example.com', 'Confirm your e-mail for Alerta');
    const verified = await call('GET', verifyLink.pathname);
    expect(verified.statusCode).toBe(302);
    expect(verified.headers.location).toBe('/email-confirmed');

    const tokens = await call('POST', '/api/users/auth/login/', { username: 'JOURNEY', password: 'Journey-Pass-1' });
    expect(tokens.statusCode).toBe(200);
    const { access, refresh } = tokens.json();
    const me = await call('GET', '/api/users/me/', undefined, access);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ username: 'journey', email: 'journey@example.com', language: 'en' });

    const rotated = await call('POST', '/api/users/auth/refresh/', { refresh });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().refresh).not.toBe(refresh);
    expect((await call('GET', '/api/users/me/', undefined, rotated.json().access)).statusCode).toBe(200);

    expect((await call('POST', '/api/users/reset-password/', { email: 'journey@example.com' })).statusCode).toBe(200);
    const resetLink = await linkFromOutbox('journey@example.com', 'Reset your Alerta password');
    const [, , uid, token] = resetLink.pathname.split('/');
    const confirmed = await call('POST', '/api/users/reset-password-confirm/', {
      uid,
      token,
      new_password1: 'Journey-New-2',
      new_password2: 'Journey-New-2',
    });
    expect(confirmed.statusCode).toBe(200);
    const old = await call('POST', '/api/users/auth/login/', { username: 'journey', password: 'Journey-Pass-1' });
    expect(old.statusCode).toBe(401);
    const fresh = await call('POST', '/api/users/auth/login/', { username: 'journey', password: 'Journey-New-2' });
    expect(fresh.statusCode).toBe(200);

    const deleted = await call('DELETE', '/api/users/delete-account/', undefined, fresh.json().access);
    expect(deleted.statusCode).toBe(204);
    const gone = await call('POST', '/api/users/auth/login/', { username: 'journey', password: 'Journey-New-2' });
    expect(gone.statusCode).toBe(401);
    expect(gone.json().detail).toBe('No active account found with the given credentials');
  });
});
