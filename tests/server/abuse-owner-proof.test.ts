import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { smsSegments } from '../../common/sms-encoding.js';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { storeAlert } from '../../server/features/alerts/service.js';
import { SMS_BUDGET } from '../../server/features/alerts/sms-budget.js';
import { smsUsageSince } from '../../server/features/billing/simulated.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { reportPendingUsage } from '../../server/features/billing/usage.js';
import { DEVICE_KEYS_PER_USER } from '../../server/features/owner/proof.js';
import { newId } from '../../server/lib/ids.js';
import { SECRET_PATH_MAX_PER_MINUTE } from '../../server/plugins/security.js';
import type { PaymentsPort } from '../../server/providers/payments/port.js';
import { nextIp } from './accounts-helpers.js';
import { alertRow, lisbonAt, type Owner, ownerWithContacts, subscriberWithContacts } from './alerts-fixtures.js';
import { createUser, dbLabel, suiteApp, type TestApp } from './helper.js';

const MINUTE = 60_000;

/** Proof headers: the owner's session, or a device key it issued. */
type Proof = { authorization: string } | { 'x-alerta-device-key': string } | Record<string, never>;

const issueKey = async (t: TestApp, headers: { authorization: string }) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/users/me/device-keys/', headers, payload: {} });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().device_key as string;
};

const alertFrom = (
  t: TestApp,
  token: string,
  options: { proof?: Proof; ip?: string; body?: Record<string, unknown>; key?: string } = {},
) =>
  t.app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/`,
    headers: { 'idempotency-key': options.key ?? randomUUID(), ...(options.proof ?? {}) },
    payload: options.body ?? { mode: 'real', location: lisbonAt(t.app) },
    remoteAddress: options.ip ?? nextIp(),
  });

describe(`device keys: the owner's proof for the emergency page (${dbLabel})`, () => {
  const t = suiteApp();

  it('issues a random key only to a signed-in owner, keeps only its hash and at most 20 per account', async () => {
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/users/me/device-keys/', payload: {} });
    expect(anonymous.statusCode).toBe(401);
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/users/me/device-keys/',
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(forged.statusCode).toBe(401);

    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100001']] });
    const first = await issueKey(t, owner.headers);
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(Buffer.from(first, 'base64url')).toHaveLength(32);
    const rows = await t.app.db.selectFrom('device_keys').selectAll().where('user_id', '=', owner.user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_hash).not.toContain(first);
    expect(rows[0]?.key_hash).toBe(createHash('sha256').update(first).digest('hex'));

    const proven = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': first } });
    expect(proven.statusCode).toBe(201);
    expect(proven.json()).toMatchObject({ proven: true });

    // 20 more: the oldest key is dropped, the newest work.
    let last = first;
    for (let i = 0; i < DEVICE_KEYS_PER_USER; i += 1) {
      t.clock.advance(1);
      last = await issueKey(t, owner.headers);
    }
    const kept = await t.app.db.selectFrom('device_keys').select('id').where('user_id', '=', owner.user.id).execute();
    expect(kept).toHaveLength(DEVICE_KEYS_PER_USER);
    expect((await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': first } })).json().proven).toBe(false);
    expect((await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': last } })).json().proven).toBe(true);
  });

  it("ignores another account's key or session, a forged header and garbage: the alert is link-only, never an error", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100002']] });
    const stranger = await ownerWithContacts(t.app, { contacts: [['Eva', '+351963100003']] });
    const strangersKey = await issueKey(t, stranger.headers);
    const proofs: Proof[] = [
      { 'x-alerta-device-key': strangersKey },
      { authorization: stranger.headers.authorization },
      { 'x-alerta-device-key': randomBytes(32).toString('base64url') },
      { 'x-alerta-device-key': 'x'.repeat(5000) },
      { authorization: `Bearer ${randomBytes(40).toString('base64url')}` },
      { authorization: 'Basic Zm9vOmJhcg==' },
    ];
    for (const proof of proofs) {
      const res = await alertFrom(t, owner.token, { proof });
      expect(res.statusCode, JSON.stringify(proof)).toBe(201);
      expect(res.json()).toMatchObject({ proven: false });
    }
    // A revoked session proves nothing either.
    await t.app.db
      .updateTable('sessions')
      .set({ revoked_at: t.clock.now() })
      .where('id', '=', owner.sessionId)
      .execute();
    expect((await alertFrom(t, owner.token, { proof: owner.headers })).json().proven).toBe(false);
  });

  it('ends the keys when the password is reset: an account recovered from someone else keeps none of their proofs', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100005']] });
    const key = await issueKey(t, owner.headers);
    expect((await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key } })).json().proven).toBe(true);

    const asked = await t.app.inject({
      method: 'POST',
      url: '/api/users/reset-password/',
      payload: { email: owner.user.email },
      remoteAddress: nextIp(),
    });
    expect(asked.statusCode).toBe(200);
    await t.app.background.idle();
    const mail = t.app.outbox.emails.find(
      (e) => e.to.includes(owner.user.email ?? '') && e.text.includes('reset-password-confirm'),
    );
    const [, uid, token] = mail?.text.match(/reset-password-confirm\/([^/\s]+)\/([A-Za-z0-9_-]+)/) ?? [];
    expect(uid && token, mail?.text).toBeTruthy();
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/users/reset-password-confirm/',
      payload: {
        uid: decodeURIComponent(uid ?? ''),
        token,
        new_password1: 'Brand-New-Pass-41',
        new_password2: 'Brand-New-Pass-41',
      },
      remoteAddress: nextIp(),
    });
    expect(reset.statusCode, reset.body).toBe(200);

    const after = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key } });
    expect(after.statusCode).toBe(201);
    expect(after.json().proven).toBe(false);
  });

  it('deletes the keys with the account', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100004']] });
    await issueKey(t, owner.headers);
    await issueKey(t, owner.headers);
    const res = await t.app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: owner.headers });
    expect(res.statusCode).toBe(204);
    const left = await t.app.db.selectFrom('device_keys').select('id').where('user_id', '=', owner.user.id).execute();
    expect(left).toHaveLength(0);
  });
});

describe(`the owner's proven alert is never 429 (${dbLabel})`, () => {
  const t = suiteApp();

  /** A flooder on `ip` fills the per-address ceiling with made-up "not me" links. */
  const flood = async (ip: string) => {
    for (let i = 0; i < SECRET_PATH_MAX_PER_MINUTE; i += 1) {
      await t.app.inject({
        method: 'GET',
        url: `/api/users/not-me/${randomBytes(12).toString('base64url')}/`,
        remoteAddress: ip,
      });
    }
  };

  it("lets the owner's alert through the ceiling a flooder on their address filled; a forged or foreign proof still gets 429", async () => {
    const cafe = '198.51.100.23';
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', '+351963200001']] });
    const stranger = await createUser(t.app);
    const key = await issueKey(t, owner.headers);
    const strangersKey = await issueKey(t, stranger.headers);
    await flood(cafe);

    for (const proof of [
      {},
      { 'x-alerta-device-key': randomBytes(32).toString('base64url') },
      { 'x-alerta-device-key': strangersKey },
      { authorization: stranger.headers.authorization },
      { authorization: `Bearer ${randomBytes(40).toString('base64url')}` },
    ] as Proof[]) {
      const refused = await alertFrom(t, owner.token, { proof, ip: cafe });
      expect(refused.statusCode, JSON.stringify(proof)).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }

    const byKey = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key }, ip: cafe });
    expect(byKey.statusCode, byKey.body).toBe(201);
    expect(byKey.json()).toMatchObject({ proven: true, recently_alerted: false, number_busy: false });
    const bySession = await alertFrom(t, owner.token, { proof: owner.headers, ip: cafe });
    expect(bySession.statusCode, bySession.body).toBe(201);
    expect(bySession.json()).toMatchObject({ proven: true });
    await t.app.dispatcher.drain();
    expect(t.app.outbox.sms.filter((sms) => sms.to === '+351963200001')).toHaveLength(2);
  });

  it('keeps the owner\'s position updates, live view, status and "I\'m safe" through that ceiling too; without the proof they get 429', async () => {
    const cafe = '198.51.100.24';
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', '+351963200009']] });
    const key = await issueKey(t, owner.headers);
    const sent = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key }, ip: cafe });
    expect(sent.statusCode, sent.body).toBe(201);
    const id = sent.json().id as string;
    await flood(cafe);

    const base = `/api/emergency/public/${owner.token}/alerts/${id}/`;
    const calls = (proof: Proof) => [
      t.app.inject({
        method: 'POST',
        url: `${base}location/`,
        headers: { 'idempotency-key': randomUUID(), ...proof },
        payload: { ...lisbonAt(t.app), captured_at: new Date(t.app.clock.now()).toISOString() },
        remoteAddress: cafe,
      }),
      t.app.inject({ method: 'GET', url: `${base}live/`, headers: proof, remoteAddress: cafe }),
      t.app.inject({ method: 'GET', url: base, headers: proof, remoteAddress: cafe }),
    ];
    for (const refused of await Promise.all(calls({}))) expect(refused.statusCode, refused.body).toBe(429);
    for (const proof of [{ 'x-alerta-device-key': key }, owner.headers] as Proof[]) {
      for (const res of await Promise.all(calls(proof))) expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const safe = await t.app.inject({
      method: 'POST',
      url: `${base}resolve/`,
      headers: { 'x-alerta-device-key': key },
      payload: { notify: false },
      remoteAddress: cafe,
    });
    expect(safe.statusCode, safe.body).toBe(200);
  });

  it("lets no link holder move or end the owner's proven alert: a position or \"I'm safe\" without the owner's proof is 403, no all-clear goes", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', '+351963200010']] });
    const key = await issueKey(t, owner.headers);
    const sent = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key } });
    expect(sent.statusCode, sent.body).toBe(201);
    // The public id is in every contact's SMS link; a holder of the leaked emergency link may have it too.
    const base = `/api/emergency/public/${owner.token}/alerts/${sent.json().public_id}/`;
    const position = (proof: Proof) =>
      t.app.inject({
        method: 'POST',
        url: `${base}location/`,
        headers: { 'idempotency-key': randomUUID(), ...proof },
        payload: {
          latitude: 41.15,
          longitude: -8.61,
          accuracy: 5,
          captured_at: new Date(t.app.clock.now()).toISOString(),
        },
        remoteAddress: nextIp(),
      });
    const resolve = (proof: Proof) =>
      t.app.inject({
        method: 'POST',
        url: `${base}resolve/`,
        headers: proof,
        payload: { notify: true },
        remoteAddress: nextIp(),
      });
    const stranger = await createUser(t.app);
    for (const proof of [{}, { authorization: stranger.headers.authorization }] as Proof[]) {
      for (const refused of [await position(proof), await resolve(proof)]) {
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ code: 'owner_proof_required' });
      }
    }
    await t.app.dispatcher.drain();
    expect(t.app.outbox.sms.filter((sms) => sms.to === '+351963200010')).toHaveLength(1);

    // The owner's page, with its key: both answered.
    expect((await position({ 'x-alerta-device-key': key })).statusCode).toBe(201);
    const safe = await resolve({ 'x-alerta-device-key': key });
    expect(safe.statusCode, safe.body).toBe(200);
    expect(safe.json()).toMatchObject({ all_clear_queued: 1 });

    // A link-only alert takes the link's positions (raising), but only the owner ends it.
    const linkOnly = await alertFrom(t, owner.token, { body: { mode: 'real', location: lisbonAt(t.app) } });
    const linkBase = `/api/emergency/public/${owner.token}/alerts/${linkOnly.json().id}/`;
    const added = await t.app.inject({
      method: 'POST',
      url: `${linkBase}location/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: {
        latitude: 38.73,
        longitude: -9.14,
        accuracy: 5,
        captured_at: new Date(t.app.clock.now()).toISOString(),
      },
      remoteAddress: nextIp(),
    });
    expect(added.statusCode, added.body).toBe(201);
    const end = (proof: Proof) =>
      t.app.inject({
        method: 'POST',
        url: `${linkBase}resolve/`,
        headers: proof,
        payload: { notify: false },
        remoteAddress: nextIp(),
      });
    expect((await end({})).json()).toMatchObject({ code: 'owner_proof_required' });
    const ended = await end({ 'x-alerta-device-key': key });
    expect(ended.statusCode, ended.body).toBe(200);
  });

  it("keeps the emergency page's data readable for the owner while a link holder reads it 60 times a minute from elsewhere", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', '+351963200011']] });
    const url = `/api/emergency/public/${owner.token}/`;
    const stranger = nextIp();
    for (let i = 0; i < 60; i += 1) {
      expect((await t.app.inject({ method: 'GET', url, remoteAddress: stranger })).statusCode).toBe(200);
    }
    const refused = await t.app.inject({ method: 'GET', url, remoteAddress: stranger });
    expect(refused.statusCode).toBe(429);
    const mine = await t.app.inject({ method: 'GET', url, remoteAddress: nextIp() });
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().contacts).toHaveLength(1);
  });

  it("keeps the owner's own counters for their calls: a link holder on the owner's address using up the alert's limits leaves the owner's proven calls alone", async () => {
    const cafe = nextIp();
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', '+351963200012']] });
    const key = await issueKey(t, owner.headers);
    const sent = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key }, ip: cafe });
    expect(sent.statusCode, sent.body).toBe(201);
    const base = `/api/emergency/public/${owner.token}/alerts/${sent.json().public_id}/`;
    const resolve = (proof: Proof) =>
      t.app.inject({
        method: 'POST',
        url: `${base}resolve/`,
        headers: proof,
        payload: { notify: false },
        remoteAddress: cafe,
      });
    const status = (proof: Proof) => t.app.inject({ method: 'GET', url: base, headers: proof, remoteAddress: cafe });
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++) last = (await resolve({})).statusCode;
    expect(last).toBe(429);
    for (let i = 0; i < 61 && last !== 429; i++) last = (await status({})).statusCode;
    for (let i = 0; i < 61; i++) last = (await status({})).statusCode;
    expect(last).toBe(429);

    expect((await status({ 'x-alerta-device-key': key })).statusCode).toBe(200);
    const safe = await resolve({ 'x-alerta-device-key': key });
    expect(safe.statusCode, safe.body).toBe(200);
  });

  it("is not held by the link's test limit either, while link-only test alerts still are", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Rita', '+351963200002']] });
    const key = await issueKey(t, owner.headers);
    const test = { mode: 'test', location: null, location_error: 'denied' };
    for (let i = 0; i < 5; i += 1) expect((await alertFrom(t, owner.token, { body: test })).statusCode).toBe(201);
    expect((await alertFrom(t, owner.token, { body: test })).statusCode).toBe(429);
    const mine = await alertFrom(t, owner.token, { body: test, proof: { 'x-alerta-device-key': key } });
    expect(mine.statusCode).toBe(201);
    expect(mine.json()).toMatchObject({ mode: 'test', proven: true });
  });
});

describe(`budgets: strangers cannot use up a number against the owner's proven alert (${dbLabel})`, () => {
  const t = suiteApp();
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);

  /** `count` link-only alerts of fresh accounts that each add `phone` as a contact right now. */
  const strangersSend = async (phone: string, count: number) => {
    const perAccount = SMS_BUDGET.perAccountNumber.max;
    for (let sent = 0; sent < count; ) {
      const stranger = await ownerWithContacts(t.app, { contacts: [['Target', phone]] });
      for (let i = 0; i < perAccount && sent < count; i += 1, sent += 1) {
        expect((await alertFrom(t, stranger.token)).statusCode).toBe(201);
      }
    }
  };

  it("sends the owner's proven alert to their mother after strangers filled her number's hourly ceiling, and says nothing of 'alerted recently'", async () => {
    const mother = '+351963300001';
    const owner = await ownerWithContacts(t.app, { contacts: [['Mãe', mother]] });
    const key = await issueKey(t, owner.headers);
    // The owner has had their mother as a contact for over an hour.
    t.clock.advance(SMS_BUDGET.perNumber.windowMs + MINUTE);

    await strangersSend(mother, SMS_BUDGET.perNumber.max);
    await t.app.dispatcher.drain();
    expect(smsTo(mother)).toHaveLength(SMS_BUDGET.perNumber.max);
    // The ceiling now holds every other sender: a stranger's link-only alert...
    const late = await ownerWithContacts(t.app, { contacts: [['Target', mother]] });
    expect((await alertFrom(t, late.token)).json()).toMatchObject({
      recently_alerted: false,
      number_busy: true,
      deliveries: [{ status: 'failed', withheld: true, withheld_reason: 'number_busy' }],
    });
    // ...a stranger's own signed-in alerts beyond their first to a number just added (each
    // account's first proven alert to a number in the hour passes the ceiling)...
    const signedIn = await alertFrom(t, late.token, { proof: late.headers });
    expect(signedIn.json()).toMatchObject({ proven: true, number_busy: false, recently_alerted: false });
    const signedInAgain = await alertFrom(t, late.token, { proof: late.headers });
    expect(signedInAgain.json()).toMatchObject({ proven: true, number_busy: true, recently_alerted: false });
    // ...and the owner's link used without proof: truthfully "number busy", not "alerted recently".
    const linkOnly = await alertFrom(t, owner.token);
    expect(linkOnly.json()).toMatchObject({ proven: false, recently_alerted: false, number_busy: true });

    const mine = await alertFrom(t, owner.token, { proof: { 'x-alerta-device-key': key } });
    expect(mine.statusCode).toBe(201);
    expect(mine.json()).toEqual({
      id: expect.any(String),
      public_id: expect.any(String),
      mode: 'real',
      reason: 'button',
      created_at: expect.any(String),
      proven: true,
      recently_alerted: false,
      number_busy: false,
      deliveries: [{ contact_name: 'Mãe', status: 'sending' }],
      escalation: { status: 'waiting', at: expect.any(String), calls: [] },
    });
    // The session proves it as well (a fresh access token: the first one has expired).
    const access = await t.app.tokens.signAccess(owner.user.id, owner.sessionId);
    const again = await alertFrom(t, owner.token, { proof: { authorization: `Bearer ${access}` } });
    expect(again.json()).toMatchObject({ proven: true, number_busy: false, deliveries: [{ status: 'sending' }] });
    await t.app.dispatcher.drain();
    expect(smsTo(mother)).toHaveLength(SMS_BUDGET.perNumber.max + 3);
    // The history says why the link-only one was not sent.
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/emergency/alerts/',
      headers: { authorization: `Bearer ${access}` },
    });
    const shown = history.json().find((a: { id: string }) => a.id === linkOnly.json().id);
    expect(shown.deliveries[0]).toMatchObject({
      withheld_reason: 'number_busy',
      last_error: expect.stringMatching(/all senders/),
    });
  });

  it('keeps link-only alerts within their own budgets, apart from the proven ones, which have theirs', async () => {
    const sister = '+351963300002';
    const owner = await ownerWithContacts(t.app, { contacts: [['Irmã', sister]] });
    const key = await issueKey(t, owner.headers);
    const proof = { 'x-alerta-device-key': key };
    t.clock.advance(SMS_BUDGET.perNumber.windowMs + MINUTE);
    const { max } = SMS_BUDGET.perAccountNumber;

    // A leaked link spends the link-only budget of this account and number...
    for (let i = 0; i < max; i += 1) {
      expect((await alertFrom(t, owner.token)).json()).toMatchObject({ recently_alerted: false, number_busy: false });
    }
    expect((await alertFrom(t, owner.token)).json()).toMatchObject({
      proven: false,
      recently_alerted: true,
      number_busy: false,
      deliveries: [{ withheld: true, withheld_reason: 'recently_alerted' }],
    });
    // ...which the owner's own alerts do not share: they have a budget of their own, as bounded.
    for (let i = 0; i < max; i += 1) {
      expect((await alertFrom(t, owner.token, { proof })).json()).toMatchObject({
        proven: true,
        recently_alerted: false,
      });
    }
    expect((await alertFrom(t, owner.token, { proof })).json()).toMatchObject({
      proven: true,
      recently_alerted: true,
      deliveries: [{ withheld_reason: 'recently_alerted' }],
    });
    await t.app.dispatcher.drain();
    expect(smsTo(sister)).toHaveLength(2 * max);
  });

  it('counts a contact added within the hour as not yet in touch: the ceiling applies to its proven alerts beyond the first', async () => {
    const friend = '+351963300003';
    await strangersSend(friend, SMS_BUDGET.perNumber.max);
    const newcomer = await ownerWithContacts(t.app, { contacts: [['Amiga', friend]] });
    const first = await alertFrom(t, newcomer.token, { proof: newcomer.headers });
    expect(first.json()).toMatchObject({ proven: true, number_busy: false, recently_alerted: false });
    const res = await alertFrom(t, newcomer.token, { proof: newcomer.headers });
    expect(res.json()).toMatchObject({ proven: true, number_busy: true, recently_alerted: false });
  });
});

describe(`budgets and billing count SMS parts (${dbLabel})`, () => {
  const t = suiteApp();

  it('counts a 4-part message as 4 against the budget and in the usage and the meter', async () => {
    const phone = '+351963400001';
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    const long = `EMERGÊNCIA: ${'𝐌𝐚𝐫𝐢𝐚 '.repeat(20)}`.slice(0, 260);
    expect(smsSegments(long).segments).toBe(4);
    const now = t.clock.now();
    const statuses: string[] = [];
    for (let n = 0; n < 6; n += 1) {
      const alert = alertRow(owner.user.id, { created_at: now + n, message: long });
      const delivery = queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: 'Ana', phone_number: phone },
        body: long,
        now,
      });
      expect(delivery.parts).toBe(4);
      await storeAlert(t.app, alert, [delivery], now);
      const row = await t.app.db
        .selectFrom('deliveries')
        .select('status')
        .where('id', '=', delivery.id)
        .executeTakeFirstOrThrow();
      statuses.push(row.status);
    }
    // 20 parts in 10 minutes: five 4-part SMS, though five messages are half the message budget.
    const fit = SMS_BUDGET.perAccountNumber.maxParts / 4;
    expect(fit).toBeLessThan(SMS_BUDGET.perAccountNumber.max);
    // Each allowed one is written for sending (claimed, or sent by now); the sixth is withheld.
    expect(statuses.map((status) => (status === 'withheld' ? status : 'allowed'))).toEqual([
      ...Array(fit).fill('allowed'),
      'withheld',
    ]);

    await t.app.dispatcher.drain();
    expect(t.app.outbox.sms.filter((sms) => sms.to === phone)).toHaveLength(fit);
    const usage = await t.app.db
      .selectFrom('usage_records')
      .select(['billable', 'parts'])
      .where('user_id', '=', owner.user.id)
      .execute();
    expect(usage.map((row) => Number(row.parts))).toEqual(Array(fit).fill(4));
    // The first real alert is free; the other four are 4 parts each.
    expect(await smsUsageSince(t.app, owner.user.id, 0)).toEqual({ billable: (fit - 1) * 4, free: 4 });

    // The meter is told the parts.
    const reported: { deliveryId: string; parts?: number }[] = [];
    const meter = {
      name: 'stripe',
      reportUsage: async (input: { deliveryId: string; parts?: number }) => {
        reported.push(input);
        return true;
      },
    } as unknown as PaymentsPort;
    await activateSubscription(t.app.db, {
      userId: owner.user.id,
      plan: 'premium',
      now: now - 1,
      provider: 'stripe',
      providerCustomerId: 'cus_parts',
      providerSubscriptionId: `sub_${newId()}`,
    });
    expect(await reportPendingUsage(t.app.db, meter, t.clock.now(), undefined, owner.user.id)).toBe(fit - 1);
    expect(reported.map((r) => r.parts)).toEqual(Array(fit - 1).fill(4));
  });
});

describe(`a reused Idempotency-Key (${dbLabel})`, () => {
  const t = suiteApp();

  it('answers 422 when it comes back with another chosen test contact, and still replays the same one', async () => {
    const owner: Owner & { contactIds: string[] } = await subscriberWithContacts(t.app, 'premium', [
      ['TEST Ana', '+351963500001'],
      ['TEST Rui', '+351963500002'],
    ]);
    const [ana, rui] = owner.contactIds;
    const key = randomUUID();
    const body = (contactId: string | undefined) => ({ mode: 'test', location: null, contact_id: contactId });
    const first = await alertFrom(t, owner.token, { key, body: body(ana) });
    expect(first.statusCode).toBe(201);
    const other = await alertFrom(t, owner.token, { key, body: body(rui) });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    const same = await alertFrom(t, owner.token, { key, body: body(ana) });
    expect(same.statusCode).toBe(200);
    expect(same.json().id).toBe(first.json().id);
    await t.app.dispatcher.drain();
    // No test SMS (the invitation sent when the contact was added is not one).
    expect(t.app.outbox.sms.filter((sms) => sms.to === '+351963500002' && /^TESTE? /.test(sms.body))).toHaveLength(0);
  });

  it('still replays alerts stored with the earlier hash (without the contact)', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963500003']] });
    const key = randomUUID();
    const body = { mode: 'real', location: null, location_error: 'denied' };
    const oldHash = createHash('sha256')
      .update(JSON.stringify(['real', null, 'denied']))
      .digest('base64url');
    const stored = alertRow(owner.user.id, { idempotency_key: key, request_hash: oldHash, created_at: t.clock.now() });
    await t.app.db.insertInto('alerts').values(stored).execute();
    const replay = await alertFrom(t, owner.token, { key, body });
    expect(replay.statusCode).toBe(200);
    expect(replay.json().id).toBe(stored.id);
    const other = await alertFrom(t, owner.token, { key, body: { ...body, location_error: 'timeout' } });
    expect(other.statusCode).toBe(422);
  });
});
