import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

// The owner sets the check-in PIN and the duress PIN from the signed-in app.

/** Every value in a JSON answer, nested ones included, as text. */
const valuesIn = (value: unknown): string[] =>
  value !== null && typeof value === 'object' ? Object.values(value).flatMap(valuesIn) : [String(value)];

describe(`check-in PINs on /me (${dbLabel})`, () => {
  const t = suiteApp();
  const patch = (headers: { authorization: string }, payload: object) =>
    t.app.inject({ method: 'PATCH', url: '/api/users/me/', headers, payload });

  it('sets both PINs hashed, shows that they are set, and clears them with null', async () => {
    const o = await ownerWithContacts(t.app);
    const set = await patch(o.headers, { checkin_pin: '2468', duress_pin: '13579' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ has_checkin_pin: true, has_duress_pin: true });
    // No field carries a PIN (ids and hashes may hold its digits by chance: a whole value is looked for).
    expect(valuesIn(set.json())).not.toContain('2468');
    expect(valuesIn(set.json())).not.toContain('13579');
    const row = await t.app.db
      .selectFrom('users')
      .select(['checkin_pin_hash', 'duress_pin_hash'])
      .where('id', '=', o.user.id)
      .executeTakeFirstOrThrow();
    expect(row.checkin_pin_hash).toMatch(/^\$argon2/);
    expect(row.duress_pin_hash).toMatch(/^\$argon2/);
    expect(Object.values(row)).not.toContain('2468');
    // A check-in now needs the PIN.
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/checkins/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { duration_seconds: 600 },
    });
    const done = (pin?: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${o.token}/checkins/${started.json().id}/done/`,
        headers: o.headers,
        payload: pin ? { pin } : {},
      });
    expect((await done()).json().code).toBe('wrong_pin');
    expect((await done('2468')).json()).toEqual({ status: 'done' });
    const cleared = await patch(o.headers, { checkin_pin: null, duress_pin: null });
    expect(cleared.json()).toMatchObject({ has_checkin_pin: false, has_duress_pin: false });
    const me = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: o.headers });
    expect(me.json()).toMatchObject({ has_checkin_pin: false, has_duress_pin: false });
  });

  it('refuses PINs that are not 4 to 8 digits, and a duress PIN equal to the check-in PIN', async () => {
    const o = await ownerWithContacts(t.app);
    for (const pin of ['123', '123456789', '12a4', ' 1234', '']) {
      const res = await patch(o.headers, { checkin_pin: pin });
      expect(res.statusCode, pin).toBe(400);
      expect(res.json().codes).toEqual({ checkin_pin: 'invalid_pin' });
    }
    const same = await patch(o.headers, { checkin_pin: '4321', duress_pin: '4321' });
    expect(same.statusCode).toBe(400);
    expect(same.json().codes).toEqual({ duress_pin: 'same_pin' });
    // Against the PIN already stored, too; nothing is changed by a refused request.
    expect((await patch(o.headers, { checkin_pin: '4321' })).statusCode).toBe(200);
    const clash = await patch(o.headers, { duress_pin: '4321', language: 'pt' });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().codes).toEqual({ duress_pin: 'same_pin' });
    const me = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: o.headers });
    expect(me.json()).toMatchObject({ has_checkin_pin: true, has_duress_pin: false, language: 'en' });
  });
});
