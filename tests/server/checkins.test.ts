import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/features/accounts/passwords.js';
import { ManualClock } from '../../server/lib/clock.js';
import { lisbonAt, type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { checkinCall, clockTime, type DeviceProof, deviceProof } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

const MINUTE = 60_000;
const GRACE = 300_000;
const base = (token: string) => `/api/emergency/public/${token}/checkins/`;

// A check-in is a timer the server holds: if the owner does not say "I'm safe" by its due
// time and the grace after it, a real alert goes out by itself, once, whatever the phone does.
describe(`check-ins (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const phone = () => {
    n += 1;
    return `+35196${String(n).padStart(7, '0')}`;
  };
  type Holder = Owner & { phones: string[]; proof: DeviceProof };
  const owner = async (count = 2): Promise<Holder> => {
    const phones = Array.from({ length: count }, phone);
    const o = await ownerWithContacts(t.app, { contacts: phones.map((p, i) => [`Contact ${i}`, p]) });
    return Object.assign(o, { phones, proof: await deviceProof(t.app, o) });
  };
  // The owner's own check-ins: started and read with the device key their page sends.
  const start = (
    o: Owner & { proof?: DeviceProof },
    body: object = { duration_seconds: 1800 },
    key = randomUUID(),
    app = t.app,
  ) =>
    app.inject({ method: 'POST', url: base(o.token), headers: { 'idempotency-key': key, ...o.proof }, payload: body });
  // Ending, extending and moving a check-in are the owner's: these calls carry the owner's device key.
  const call = (o: Holder, id: string, action: 'done' | 'extend' | 'location', payload: object = {}) =>
    checkinCall(t.app, o.token, id, action, { payload, proof: o.proof });
  const current = (o: Holder) => t.app.inject({ method: 'GET', url: `${base(o.token)}current/`, headers: o.proof });
  const smsTo = (o: Holder, app: FastifyInstance = t.app) =>
    app.outbox.sms.filter((sms) => o.phones.includes(sms.to)).map((sms) => sms.body);
  const settle = async (app: FastifyInstance = t.app) => {
    await app.jobs.runDue();
    await app.dispatcher.drain();
    await app.background.idle();
  };
  const alerts = (o: Holder) =>
    t.app.db.selectFrom('alerts').select(['id', 'reason']).where('user_id', '=', o.user.id).execute();

  it('starts once per key (201, then 200 with the same check-in), one at a time (409), and 422 for another body', async () => {
    const o = await owner();
    const key = randomUUID();
    const first = await start(o, { duration_seconds: 1800, note: '  Walking home ' }, key);
    expect(first.statusCode, first.body).toBe(201);
    const checkin = first.json();
    expect(checkin).toMatchObject({ status: 'running', grace_seconds: 300, note: 'Walking home', alert_id: null });
    expect(Date.parse(checkin.due_at)).toBe(t.clock.now() + 1800_000);
    const again = await start(o, { duration_seconds: 1800, note: '  Walking home ' }, key);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(checkin.id);
    expect((await start(o, { duration_seconds: 900 }, key)).json().code).toBe('idempotency_key_reused');
    const second = await start(o);
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('checkin_running');
    expect((await current(o)).json()).toMatchObject({ id: checkin.id, status: 'running' });
  });

  it('refuses bad input with clear 400s and needs an active plan to start (402)', async () => {
    const o = await owner();
    for (const body of [
      { duration_seconds: 59 },
      { duration_seconds: 86_401 },
      { duration_seconds: 600, note: 'x'.repeat(141) },
      {},
    ]) {
      const res = await start(o, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const lapsed = await ownerWithContacts(t.app, { plan: null });
    expect((await start(lapsed)).statusCode).toBe(402);
    expect((await current(o)).statusCode).toBe(404);
  });

  it('at the due time turns overdue and mails a reminder; after the grace sends a real missed_checkin alert with the note and last position, once', async () => {
    const o = await owner();
    const started = await start(o, { duration_seconds: 3600, note: 'First date at Café Luso' });
    const id = started.json().id;
    const fix = lisbonAt(t.app);
    expect((await call(o, id, 'location', fix)).statusCode).toBe(204);
    moveTime(t, 3600_000);
    await settle();
    expect((await current(o)).json().status).toBe('overdue');
    const reminder = t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /are you OK/i.test(mail.subject));
    expect(reminder).toHaveLength(1);
    // Opened to say "I'm safe": the page skips the alert countdown.
    expect(reminder[0]?.text).toContain(`/public/${o.token}/#checkin`);
    expect(smsTo(o)).toEqual([]);
    moveTime(t, GRACE);
    await settle();
    await settle();
    const fired = (await current(o)).json();
    expect(fired.status).toBe('fired');
    expect(fired.alert_id).toEqual(expect.any(String));
    const sms = smsTo(o);
    expect(sms).toHaveLength(2);
    for (const body of sms) {
      expect(body).toContain('did not check in as planned at');
      expect(body).toContain('First date at Caf');
      expect(body).toContain('maps.google.com');
      expect(body).toMatch(/\/a\/[\w-]+\?c=/);
    }
    expect(await alerts(o)).toEqual([{ id: fired.alert_id, reason: 'missed_checkin' }]);
    const status = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${o.token}/alerts/${fired.alert_id}/`,
      headers: o.proof,
    });
    expect(status.json().reason).toBe('missed_checkin');
    // "I'm safe" after the alert went out: the page is told, and pointed to the all-clear.
    const late = await call(o, id, 'done');
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('checkin_fired');
  });

  it('"I\'m safe" before the time ends it: nothing is sent, then or later; extend moves the due time', async () => {
    const o = await owner();
    const id = (await start(o, { duration_seconds: 600 })).json().id;
    const extended = await call(o, id, 'extend', { seconds: 900 });
    expect(extended.statusCode).toBe(200);
    expect(Date.parse(extended.json().due_at)).toBe(t.clock.now() + 1500_000);
    moveTime(t, 600_000 + GRACE);
    await settle();
    expect((await current(o)).json().status).toBe('running');
    expect((await call(o, id, 'done')).json()).toEqual({ status: 'done' });
    moveTime(t, 2 * 3600_000);
    await settle();
    expect(smsTo(o)).toEqual([]);
    expect(await alerts(o)).toEqual([]);
    expect((await call(o, id, 'extend', { seconds: 900 })).json().code).toBe('checkin_ended');
    expect((await call(o, id, 'extend', { seconds: 59 })).statusCode).toBe(400);
  });

  it('an extension cannot take a check-in past 24 hours in all', async () => {
    const o = await owner();
    const id = (await start(o, { duration_seconds: 86_000 })).json().id;
    const res = await call(o, id, 'extend', { seconds: 600 });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('checkin_too_long');
    expect((await call(o, id, 'extend', { seconds: 400 })).statusCode).toBe(200);
  });

  it('fires exactly once with two server processes sweeping at the same time', async () => {
    const o = await owner();
    const id = (await start(o, { duration_seconds: 60 })).json().id;
    const second = await secondServer(t);
    const other = second.app;
    try {
      await other.ready();
      moveTime(t, MINUTE + GRACE);
      await Promise.all([settle(), settle(other), settle(), settle(other)]);
      await Promise.all([settle(), settle(other)]);
      expect([...smsTo(o), ...smsTo(o, other)]).toHaveLength(2);
      expect(await alerts(o)).toHaveLength(1);
      expect((await current(o)).json()).toMatchObject({ id, status: 'fired' });
    } finally {
      await second.close();
    }
  });

  it('fires at once when a server starts after being down through the due time, and names the real due time', async () => {
    const o = await owner(1);
    await t.app.db.updateTable('users').set({ time_zone: 'Europe/Lisbon' }).where('id', '=', o.user.id).execute();
    const id = (await start(o, { duration_seconds: 60 })).json().id;
    const dueAt = t.clock.now() + MINUTE;
    const second = await secondServer(t, new ManualClock(dueAt + 3 * 3600_000));
    const restarted = second.app;
    try {
      await restarted.ready();
      await restarted.periodic.runNow('jobs');
      await restarted.dispatcher.drain();
      const sms = smsTo(o, restarted);
      expect(sms).toHaveLength(1);
      const due = clockTime(dueAt, 'Europe/Lisbon');
      expect(sms[0]).toContain(`did not check in as planned at ${due}.`);
      const row = await t.app.db.selectFrom('checkins').select('status').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.status).toBe('fired');
    } finally {
      await second.close();
    }
  });

  describe('PIN and duress PIN', () => {
    const withPins = async () => {
      const o = await owner();
      await t.app.db
        .updateTable('users')
        .set({ checkin_pin_hash: await hashPassword('2468'), duress_pin_hash: await hashPassword('1357') })
        .where('id', '=', o.user.id)
        .execute();
      return o;
    };

    it('needs the PIN to end; the duress PIN answers exactly the same and sends a duress alert', async () => {
      const right = await withPins();
      const forced = await withPins();
      const rightId = (await start(right)).json().id;
      const forcedId = (await start(forced)).json().id;
      expect((await call(right, rightId, 'done')).json().code).toBe('wrong_pin');
      const ok = await call(right, rightId, 'done', { pin: '2468' });
      const duress = await call(forced, forcedId, 'done', { pin: '1357' });
      expect(duress.statusCode).toBe(ok.statusCode);
      expect(duress.body).toBe(ok.body);
      expect(duress.headers['content-type']).toBe(ok.headers['content-type']);
      const [a, b] = [(await current(right)).json(), (await current(forced)).json()];
      expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
      expect([a.status, b.status, a.alert_id, b.alert_id]).toEqual(['done', 'done', null, null]);
      await settle();
      expect(smsTo(right)).toEqual([]);
      const sms = smsTo(forced);
      expect(sms).toHaveLength(2);
      expect(sms[0]).toContain('may be acting under duress. Do not call or reply to them openly');
      expect((await alerts(forced)).map((alert) => alert.reason)).toEqual(['duress']);
      // No receipt to the owner's mailbox about a duress alert.
      await t.app.background.idle();
      expect(t.app.outbox.emails.filter((mail) => mail.to === forced.user.email)).toEqual([]);
      // Running the timers again sends nothing more.
      await settle();
      expect(smsTo(forced)).toHaveLength(2);
    });

    it('five wrong PINs fire the check-in', async () => {
      const o = await withPins();
      const id = (await start(o)).json().id;
      for (let i = 0; i < 4; i += 1) expect((await call(o, id, 'done', { pin: '0000' })).statusCode).toBe(403);
      await settle();
      expect(smsTo(o)).toEqual([]);
      expect((await call(o, id, 'done', { pin: '0000' })).statusCode).toBe(403);
      await settle();
      expect(smsTo(o)).toHaveLength(2);
      expect((await current(o)).json().status).toBe('fired');
      expect((await call(o, id, 'done', { pin: '2468' })).json().code).toBe('checkin_fired');
    });
  });

  it('"I\'m safe" racing the firing: whichever commits first wins, never both', async () => {
    for (let round = 0; round < 4; round += 1) {
      const o = await owner();
      const id = (await start(o, { duration_seconds: 60 })).json().id;
      moveTime(t, MINUTE + GRACE);
      const [done] = await Promise.all([call(o, id, 'done'), settle()]);
      await settle();
      const state = (await current(o)).json();
      if (done.statusCode === 200) {
        expect(state.status).toBe('done');
        expect(smsTo(o)).toEqual([]);
      } else {
        expect(done.json().code).toBe('checkin_fired');
        expect(state.status).toBe('fired');
        expect(smsTo(o)).toHaveLength(2);
      }
    }
  });
});
