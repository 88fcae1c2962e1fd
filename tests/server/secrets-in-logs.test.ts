import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redactLogFields, redactPhoneNumbers } from '../../server/lib/redact.js';
import type { OutboxSms } from '../../server/providers/sms/outbox.js';
import { dbLabel, suiteApp, TEST_JWT_SECRET } from './helper.js';

const PASSWORD = 'Journey-Pass-31';
const NEW_PASSWORD = 'Journey-Pass-32';
const PHONES = ['+351912345678', '+34612345678'];

/** A link in an e-mail's text. */
const linkIn = (text: string) => text.match(/https?:\/\/\S+/)![0];

/** The whole product, from sign-up to an alert and its statuses, with trace-level logs captured. */
describe(`no secret reaches the logs on a whole journey (${dbLabel})`, () => {
  const lines: string[] = [];
  const t = suiteApp({}, undefined, { logLines: lines });
  const secrets: Record<string, string> = {
    password: PASSWORD,
    'new password': NEW_PASSWORD,
    'wrong password': 'Wrong-Guess-77',
    'JWT secret': TEST_JWT_SECRET,
  };

  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, access?: string) => {
    const res = await t.app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: {
        ...(access ? { authorization: `Bearer ${access}` } : {}),
        ...(url.includes('/alerts/') && method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
      },
    });
    // E-mails some answers leave for afterwards (app.background) are out before the next step.
    await t.app.background.idle();
    return res;
  };

  it('walks sign-up, verification, sessions, reset, checkout, contacts, alerts and rotation', async () => {
    const registered = await call('POST', '/api/users/registration/', {
      username: 'journey',
      email: 'journey@example.com',
      password1: PASSWORD,
      password2: PASSWORD,
      accept_terms: true,
    });
    expect(registered.statusCode).toBe(201);
    const verifyLink = linkIn(t.app.outbox.emails[0]!.text);
    secrets['verification link'] = verifyLink;
    secrets['verification key'] = verifyLink.split('/').filter(Boolean).at(-1)!;
    expect((await call('GET', new URL(verifyLink).pathname)).statusCode).toBe(302);

    expect(
      (await call('POST', '/api/users/auth/login/', { username: 'journey', password: 'Wrong-Guess-77' })).statusCode,
    ).toBe(401);
    const first = (await call('POST', '/api/users/auth/login/', { username: 'journey', password: PASSWORD })).json();
    secrets['first access'] = first.access;
    secrets['first refresh'] = first.refresh;
    const second = (await call('POST', '/api/users/auth/refresh/', { refresh: first.refresh })).json();
    secrets['second access'] = second.access;
    secrets['second refresh'] = second.refresh;
    expect((await call('GET', '/api/users/me/', undefined, second.access)).statusCode).toBe(200);

    expect((await call('POST', '/api/users/reset-password/', { email: 'journey@example.com' })).statusCode).toBe(200);
    const resetLink = linkIn(t.app.outbox.emails[0]!.text);
    const [, , uid, resetToken] = new URL(resetLink).pathname.split('/');
    secrets['reset link'] = resetLink;
    secrets['reset token'] = resetToken!;
    const reset = await call('POST', '/api/users/reset-password-confirm/', {
      uid,
      token: resetToken,
      new_password1: NEW_PASSWORD,
      new_password2: NEW_PASSWORD,
    });
    expect(reset.statusCode).toBe(200);
    // A replayed reset and a replayed refresh token: failures log too.
    await call('POST', '/api/users/reset-password-confirm/', {
      uid,
      token: resetToken,
      new_password1: NEW_PASSWORD,
      new_password2: NEW_PASSWORD,
    });
    await call('POST', '/api/users/auth/refresh/', { refresh: first.refresh });
    const session = (
      await call('POST', '/api/users/auth/login/', { username: 'journey', password: NEW_PASSWORD })
    ).json();
    secrets['third access'] = session.access;
    secrets['third refresh'] = session.refresh;

    const checkout = await call('POST', '/api/billing/checkout/', { plan: 'premium' }, session.access);
    expect(checkout.statusCode).toBe(200);
    const paid = await t.app.inject({ method: 'POST', url: `${checkout.json().url}/pay`, payload: {} });
    expect(paid.statusCode).toBe(200);

    for (const [i, phone] of PHONES.entries()) {
      const name = i === 0 ? 'TEST Ana' : 'Rui Costa';
      const added = await call('POST', '/api/emergency/contacts/', { name, phone_number: phone }, session.access);
      expect(added.statusCode).toBe(201);
    }
    // A refused number is logged as a 400 without its digits.
    await call('POST', '/api/emergency/contacts/', { name: 'Rui Costa', phone_number: PHONES[1] }, session.access);
    const me = (await call('GET', '/api/users/me/', undefined, session.access)).json();
    const token = me.token as string;
    secrets['alert token'] = token;
    expect((await call('GET', `/api/emergency/public/${token}/`)).statusCode).toBe(200);
    expect((await call('GET', `/public/${token}/manifest.webmanifest`)).statusCode).toBe(200);

    // The provider refuses the first attempt, echoing the number as real providers do.
    (t.app.sms as OutboxSms).failNext(1, `The 'To' number ${PHONES[0]} is not a valid phone number.`);
    const alert = await call('POST', `/api/emergency/public/${token}/alerts/`, {
      mode: 'real',
      location: { latitude: 38.7223, longitude: -9.1393, accuracy: 8, captured_at: Date.now() },
    });
    expect(alert.statusCode).toBe(201);
    await t.app.dispatcher.drain();
    expect((await call('GET', `/api/emergency/public/${token}/alerts/${alert.json().id}/`)).statusCode).toBe(200);
    const history = await call('GET', '/api/emergency/alerts/', undefined, session.access);
    expect(history.statusCode).toBe(200);

    const rotated = await call('POST', '/api/users/token/rotate/', undefined, session.access);
    secrets['rotated token'] = rotated.json().token;
    expect((await call('GET', `/api/emergency/public/${token}/`)).statusCode).toBe(404);
    await call('POST', '/api/users/auth/logout/', undefined, session.access);
    await t.app.close();
  });

  it('logged every request, and none of the secrets, in full or in part of a URL', () => {
    const log = lines.join('');
    // The logs are there and at the level asked for: requests, responses, the failed SMS attempt.
    expect(log.match(/"msg":"incoming request"/g)?.length ?? 0).toBeGreaterThanOrEqual(25);
    expect(log).toContain('"msg":"request completed"');
    expect(log).toContain('SMS attempt failed');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(log.includes(secret), `${name} is in the logs`).toBe(false);
    }
    for (const phone of PHONES) {
      // The number in full, with or without its +, or its national part.
      for (const form of [phone, phone.slice(1), phone.slice(4)]) {
        expect(log.includes(form), `phone ${form} is in the logs`).toBe(false);
      }
    }
    // Nor where the owner was: the alert's position is personal data too.
    expect(log).not.toMatch(/38\.7223|9\.1393/);
    // No JWT of any kind, whoever's.
    expect(log).not.toMatch(/eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{20,}/);
  });
});

describe('log redaction of phone numbers', () => {
  it('cuts numbers short in every spelling, and leaves ids, times and small numbers alone', () => {
    expect(redactPhoneNumbers('To +351912345678 failed')).toBe('To +351…78 failed');
    expect(redactPhoneNumbers('call 351 912 345 678 or 612-345-678')).toBe('call 351…78 or 612…78');
    expect(redactPhoneNumbers('+1 (202) 555-0143')).toBe('+120…43');
    const id = '12345678-1234-4abc-8def-123456789012';
    expect(redactPhoneNumbers(`delivery ${id} after 30000 ms`)).toBe(`delivery ${id} after 30000 ms`);
  });

  it('masks strings nested in records and in errors, leaving other objects to their serializers', () => {
    const request = new (class FakeRequest {
      url = '/x/+351912345678';
    })();
    const error = new Error('number +351912345678 is invalid');
    const record = redactLogFields({
      reason: 'to +351912345678',
      nested: { list: ['+34612345678'] },
      err: error,
      req: request,
    }) as Record<string, unknown>;
    expect(JSON.stringify({ ...record, req: undefined })).not.toMatch(/912345678|612345678/);
    expect(record.req).toBe(request);
    expect((record.err as { message: string }).message).toBe('number +351…78 is invalid');
  });
});
