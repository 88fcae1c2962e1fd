import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { enqueue } from '../../server/jobs/index.js';
import { ManualClock } from '../../server/lib/clock.js';
import { type Owner, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, moveTime, OUTBOX_KEY, suiteApp } from './helper.js';
import { postAck, postResolve, sendRealAlert } from './live-fixtures.js';
import { secondServer } from './second-process.js';

const ESCALATION_MS = 300_000;

// A real alert nobody answers: after ESCALATION_AFTER_SECONDS every contact it reached who has
// not said "I'm on my way" is phoned, once, and gets a second SMS; pressing 1 on the call is
// their "I'm on my way".
describe(`escalation by phone (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  type Holder = Owner & { phones: string[] };
  const owner = async (count = 2, name = 'Contact'): Promise<Holder> => {
    const phones = Array.from({ length: count }, () => `+35193${String(++n).padStart(7, '0')}`);
    const o = await ownerWithContacts(t.app, { contacts: phones.map((p, i) => [`${name} ${i}`, p]) });
    return Object.assign(o, { phones });
  };
  const settle = async (app: FastifyInstance = t.app) => {
    await app.jobs.runDue();
    await app.dispatcher.drain();
    await app.background.idle();
  };
  const callsTo = (o: Holder, app: FastifyInstance = t.app) => app.outbox.calls.filter((c) => o.phones.includes(c.to));
  const smsTo = (o: Holder, app: FastifyInstance = t.app) =>
    app.outbox.sms.filter((sms) => o.phones.includes(sms.to)).map((sms) => sms.body);
  const escalationOf = async (o: Holder, id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/alerts/${id}/` })).json().escalation;
  const press = (id: string, digits: string, app: FastifyInstance = t.app) =>
    app.inject({ method: 'POST', url: `/dev/outbox/calls/${id}/digits/?key=${OUTBOX_KEY}`, payload: { digits } });

  it('phones every contact once when nobody answers, with a second SMS; pressing 1 is that contact’s "on my way"', async () => {
    const o = await owner();
    await t.app.db
      .updateTable('users')
      .set({ time_zone: 'Europe/Lisbon', language: 'pt' })
      .where('id', '=', o.user.id)
      .execute();
    const alert = await sendRealAlert(t.app, o.token);
    await settle();
    const waiting = await escalationOf(o, alert.id);
    expect(waiting).toEqual({
      status: 'waiting',
      at: new Date(Date.parse(alert.created_at) + ESCALATION_MS).toISOString(),
      calls: [],
    });

    moveTime(t, ESCALATION_MS - 1000);
    await settle();
    expect(callsTo(o)).toEqual([]);
    moveTime(t, 1000);
    await settle();
    const calls = callsTo(o);
    expect(calls.map((c) => c.to).sort()).toEqual([...o.phones].sort());
    expect(calls[0]?.say).toMatch(
      new RegExp(`^${o.user.username} precisa de ajuda\\. Enviou um alerta de emergência às \\d\\d:\\d\\d\\.`),
    );
    expect(smsTo(o).filter((body) => body.startsWith('Ainda ninguém respondeu:'))).toHaveLength(2);
    const calling = await escalationOf(o, alert.id);
    expect(calling.status).toBe('calling');
    expect(calling.calls).toHaveLength(2);
    expect(calling.calls).toEqual(
      expect.arrayContaining([
        { contact_name: 'Contact 0', status: 'ringing' },
        { contact_name: 'Contact 1', status: 'ringing' },
      ]),
    );

    const first = calls.find((c) => c.to === o.phones[0]);
    const pressed = await press(first?.id ?? '', '1');
    expect(pressed.statusCode, pressed.body).toBe(200);
    expect(pressed.json()).toEqual({
      say: `Obrigado. ${o.user.username} vai saber que vai a caminho.`,
      acknowledged: true,
    });
    const live = (await t.app.inject({ method: 'GET', url: `/api/live/${alert.public_id}/` })).json();
    expect(live.responders).toMatchObject([{ name: 'Contact 0', contact: true }]);
    expect(
      new Map(
        (await escalationOf(o, alert.id)).calls.map((c: { contact_name: string; status: string }) => [
          c.contact_name,
          c.status,
        ]),
      ),
    ).toEqual(
      new Map([
        ['Contact 0', 'acknowledged'],
        ['Contact 1', 'ringing'],
      ]),
    );
    // Later runs place nothing more.
    moveTime(t, 3600_000);
    await settle();
    expect(callsTo(o)).toHaveLength(2);
    expect((await press(first?.id ?? '', 'x')).statusCode).toBe(400);
    expect((await press('no-such-call', '1')).statusCode).toBe(404);
  });

  it('is cancelled by a contact’s "on my way" or the all-clear before the calls; a stranger’s answer cancels nothing', async () => {
    const answered = await owner();
    const safe = await owner();
    const stranger = await owner();
    const a = await sendRealAlert(t.app, answered.token);
    const s = await sendRealAlert(t.app, safe.token);
    const x = await sendRealAlert(t.app, stranger.token);
    await settle();
    const key = /\?c=([\w-]+)/.exec(smsTo(answered)[0] ?? '')?.[1];
    expect((await postAck(t.app, a.public_id, { contact_key: key })).statusCode).toBe(201);
    expect((await postResolve(t.app, safe.token, s.id, { notify: true })).statusCode).toBe(200);
    expect((await postAck(t.app, x.public_id, { name: 'Passer-by' }, '203.0.113.9')).statusCode).toBe(201);
    expect((await escalationOf(answered, a.id)).status).toBe('cancelled');
    expect((await escalationOf(safe, s.id)).status).toBe('cancelled');
    moveTime(t, ESCALATION_MS);
    await settle();
    expect(callsTo(answered)).toEqual([]);
    expect(callsTo(safe)).toEqual([]);
    expect(callsTo(stranger)).toHaveLength(2);
    // The all-clear after the calls still sends its SMS.
    expect((await postResolve(t.app, stranger.token, x.id, { notify: true })).json().all_clear_queued).toBe(2);
  });

  it('never escalates a test alert, nor for an owner who chose never; the owner’s own delay is kept and shown', async () => {
    const o = await owner(1, 'TEST');
    const test = await postAlert(t.app, o.token, { mode: 'test', location: null });
    expect(test.statusCode, test.body).toBe(201);
    expect(test.json().escalation).toEqual({ status: 'off', at: null, calls: [] });
    const patch = (body: object) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/users/me/',
        headers: { authorization: `Bearer ${o.access}` },
        payload: body,
      });
    expect(
      (
        await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${o.access}` } })
      ).json().escalation_after_seconds,
    ).toBe(300);
    for (const bad of [59, 1801, -1, 1.5, 'soon']) {
      const res = await patch({ escalation_after_seconds: bad });
      expect(res.statusCode, String(bad)).toBe(400);
    }
    expect((await patch({ escalation_after_seconds: 120 })).json().escalation_after_seconds).toBe(120);
    const soon = await sendRealAlert(t.app, o.token);
    expect((await escalationOf(o, soon.id)).at).toBe(new Date(Date.parse(soon.created_at) + 120_000).toISOString());
    expect((await patch({ escalation_after_seconds: 0 })).json().escalation_after_seconds).toBe(0);
    const never = await sendRealAlert(t.app, o.token);
    expect((await escalationOf(o, never.id)).status).toBe('off');
    expect((await patch({ escalation_after_seconds: null })).json().escalation_after_seconds).toBe(300);
  });

  it('calls each contact once with two server processes running the timer at the same moment', async () => {
    const o = await owner();
    await sendRealAlert(t.app, o.token);
    const second = await secondServer(t);
    const other = second.app;
    try {
      await other.ready();
      moveTime(t, ESCALATION_MS);
      await Promise.all([settle(), settle(other), settle(), settle(other)]);
      const calls = [...callsTo(o), ...callsTo(o, other)];
      expect(calls.map((c) => c.to).sort()).toEqual([...o.phones].sort());
      const rows = await t.app.db
        .selectFrom('escalation_calls')
        .select('phone_number')
        .where('phone_number', 'in', o.phones)
        .execute();
      expect(rows).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it('calls at once when a server starts after being down through the escalation time', async () => {
    const o = await owner(1);
    const alert = await sendRealAlert(t.app, o.token);
    await settle();
    const second = await secondServer(t, new ManualClock(Date.parse(alert.created_at) + 2 * 3600_000));
    const restarted = second.app;
    try {
      await restarted.ready();
      await restarted.periodic.runNow('jobs');
      expect(callsTo(o, restarted).map((c) => c.to)).toEqual(o.phones);
    } finally {
      await second.close();
    }
  });

  it('rings a contact once when the process placing the call died after the provider took it and before it was recorded', async () => {
    const o = await owner(1);
    const alert = await sendRealAlert(t.app, o.token);
    moveTime(t, ESCALATION_MS);
    await settle();
    expect(callsTo(o)).toHaveLength(1);
    // What that process leaves: the call still queued since its attempt began, its job to run again.
    const [call] = await t.app.db.selectFrom('escalation_calls').selectAll().where('alert_id', '=', alert.id).execute();
    if (!call) throw new Error('no call');
    expect(call.placed_at).not.toBeNull();
    await t.app.db
      .updateTable('escalation_calls')
      .set({ status: 'queued', provider_call_id: null })
      .where('id', '=', call.id)
      .execute();
    await enqueue(t.app.db, { kind: 'escalation-call', subject: call.id, dueAt: t.clock.now(), now: t.clock.now() });
    moveTime(t, 1000);
    await settle();
    expect(callsTo(o)).toHaveLength(1);
    expect(
      await t.app.db
        .selectFrom('escalation_calls')
        .select(['status', 'provider_call_id'])
        .where('id', '=', call.id)
        .executeTakeFirst(),
    ).toEqual({ status: 'ringing', provider_call_id: `CA-outbox-${call.id}` });
  });
});
