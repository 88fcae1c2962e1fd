import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { firstDueAfter } from '../../common/daily-schedule.js';
import { ManualClock } from '../../server/lib/clock.js';
import { LISBON, lisbonAt, ownerWithContacts } from './alerts-fixtures.js';
import { type CheckinOwner, checkinOwner, clockTime, settle, smsTo, subscribedBrowser } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const ZONE = 'Europe/Lisbon';
const SETTINGS = '/api/users/me/daily-checkin/';
const okPath = (token: string) => `/api/emergency/public/${token}/daily/ok/`;

// The daily check-in: an "I'm OK" a day; when it stops, the contacts are alerted by the
// server itself, once, whatever the owner's phone does.
describe(`daily check-in (${dbLabel})`, () => {
  const t = suiteApp();
  const owner = async (contacts = 2): Promise<CheckinOwner> => {
    const o = await checkinOwner(t.app, { contacts });
    await t.app.db.updateTable('users').set({ time_zone: ZONE }).where('id', '=', o.user.id).execute();
    return o;
  };
  // A fresh access token each time: the tests move the clock past an access token's life.
  const session = async (o: CheckinOwner, app: FastifyInstance = t.app) => ({
    authorization: `Bearer ${await app.tokens.signAccess(o.user.id, o.sessionId)}`,
  });
  const put = async (o: CheckinOwner, body: object, app: FastifyInstance = t.app) =>
    app.inject({ method: 'PUT', url: SETTINGS, headers: await session(o, app), payload: body });
  const get = async (o: CheckinOwner) => t.app.inject({ method: 'GET', url: SETTINGS, headers: await session(o) });
  /** A schedule due at the owner's clock time two hours from now, every day, with a 30-minute grace. */
  const enable = async (o: CheckinOwner, extra: object = {}) => {
    const time = clockTime(t.clock.now() + 2 * 3600_000, ZONE);
    const res = await put(o, { enabled: true, time, every_days: 1, grace_minutes: 30, ...extra });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const dailyAlerts = (o: CheckinOwner) =>
    t.app.db
      .selectFrom('alerts')
      .select(['id', 'reason', 'proven'])
      .where('user_id', '=', o.user.id)
      .where('reason', '=', 'missed_daily')
      .execute();
  const untilDue = (view: { next_due_at: string }) => Date.parse(view.next_due_at) - t.clock.now();
  const reminders = (o: CheckinOwner) =>
    t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /OK today/.test(mail.subject));

  it('is off until set; PUT answers the schedule with its next due time on the owner’s clock', async () => {
    const o = await owner();
    expect((await get(o)).json()).toMatchObject({ enabled: false, status: 'off', next_due_at: null });
    const view = await put(o, { enabled: true, time: '09:41', every_days: 2 });
    expect(view.statusCode, view.body).toBe(200);
    const expected = firstDueAfter({ time: '09:41', everyDays: 2, pausedUntil: null, timeZone: ZONE }, t.clock.now());
    expect(view.json()).toMatchObject({ enabled: true, grace_minutes: 60, paused_until: null, status: 'waiting' });
    expect(Date.parse(view.json().next_due_at)).toBe(expected);
    expect((await get(o)).json().next_due_at).toBe(view.json().next_due_at);
    for (const bad of [{ time: '24:00' }, { every_days: 8 }, { grace_minutes: 0 }, { paused_until: 'soon' }]) {
      const res = await put(o, { enabled: true, time: '09:41', every_days: 1, ...bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    const basic = await ownerWithContacts(t.app, { plan: 'basic' });
    const refused = await t.app.inject({
      method: 'PUT',
      url: SETTINGS,
      headers: basic.headers,
      payload: { enabled: true, time: '09:41', every_days: 1 },
    });
    expect(refused.statusCode).toBe(402);
    expect(refused.json().code).toBe('subscription_required');
    expect((await t.app.inject({ method: 'GET', url: SETTINGS })).statusCode).toBe(401);
  });

  it('at the due time reminds the owner once; after the grace sends one missed_daily alert to every contact, and the schedule goes on', async () => {
    const o = await owner();
    await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/checkins/`,
      headers: { 'idempotency-key': randomUUID(), ...o.proof },
      payload: { duration_seconds: 600, location: { ...LISBON, captured_at: new Date(t.clock.now()).toISOString() } },
    });
    const current = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/checkins/current/` });
    await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/checkins/${current.json().id}/done/`,
      headers: o.proof,
      payload: {},
    });
    const endpoint = await subscribedBrowser(t.app, o, 'daily');
    const view = await enable(o);
    moveTime(t, untilDue(view));
    await settle(t.app);
    await settle(t.app);
    expect((await get(o)).json().status).toBe('due');
    const pushed = t.app.outbox.push.filter((push) => push.endpoint === endpoint);
    expect(pushed).toEqual([expect.objectContaining({ title: 'are you OK today?' })]);
    expect(reminders(o)).toHaveLength(1);
    expect(reminders(o)[0]?.text).toMatch(/\/api\/daily\/ok\/[\w-]+\//);
    expect(smsTo(t.app, o)).toEqual([]);
    moveTime(t, 30 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    const alerts = await dailyAlerts(o);
    expect(alerts).toEqual([{ id: expect.any(String), reason: 'missed_daily', proven: 1 }]);
    const sms = smsTo(t.app, o).map((message) => message.body);
    expect(sms).toHaveLength(2);
    for (const body of sms) {
      expect(body).toMatch(/missed their daily check-in: no check-in since \w+day \d\d:\d\d\./);
      expect(body).toContain('maps.google.com');
      expect(body).toMatch(/\/a\/[\w-]+\?c=/);
    }
    // The e-mail's link ended with the grace.
    const link = reminders(o)[0]?.text.match(/https?:\/\/\S+\/api\/daily\/ok\/[\w-]+\//)?.[0] as string;
    expect((await t.app.inject({ method: 'GET', url: new URL(link).pathname })).statusCode).toBe(404);
    const after = (await get(o)).json();
    expect(after).toMatchObject({ status: 'missed', alert_id: alerts[0]?.id });
    expect(Date.parse(after.next_due_at)).toBe(Date.parse(view.next_due_at) + DAY);
    expect(reminders(o)).toHaveLength(1);
    // The next day is missed too: its own alert, once.
    moveTime(t, DAY);
    await settle(t.app);
    await settle(t.app);
    expect(await dailyAlerts(o)).toHaveLength(2);
  });

  it('"I’m OK today" with a link alone is refused (403); with the owner’s proof from the same address it checks in and nothing goes', async () => {
    const o = await owner();
    const view = await enable(o);
    const stranger = await t.app.inject({ method: 'POST', url: okPath(o.token), payload: {} });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().code).toBe('owner_proof_required');
    // Nor does a link read when the owner is expected to check in.
    const peek = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/daily/` });
    expect(peek.statusCode).toBe(403);
    const own = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/daily/`, headers: o.proof });
    expect(own.json()).toMatchObject({ status: 'waiting', next_due_at: view.next_due_at });
    moveTime(t, untilDue(view) + MINUTE);
    const ok = await t.app.inject({ method: 'POST', url: okPath(o.token), headers: o.proof, payload: {} });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'waiting', last_ok_at: new Date(t.clock.now()).toISOString() });
    expect(Date.parse(ok.json().next_due_at)).toBe(Date.parse(view.next_due_at) + DAY);
    const signedIn = await t.app.inject({
      method: 'POST',
      url: okPath(o.token),
      headers: await session(o),
      payload: {},
    });
    expect(signedIn.statusCode).toBe(200);
    moveTime(t, 60 * MINUTE);
    await settle(t.app);
    expect(await dailyAlerts(o)).toEqual([]);
    expect(smsTo(t.app, o)).toEqual([]);
  });

  it('a queued tap counts at the time it was tapped; an alert the owner sends counts as a sign of life', async () => {
    const o = await owner();
    const view = await enable(o);
    moveTime(t, untilDue(view) - 5 * MINUTE);
    const tapped = new Date(t.clock.now()).toISOString();
    moveTime(t, 10 * MINUTE);
    const late = await t.app.inject({
      method: 'POST',
      url: okPath(o.token),
      headers: o.proof,
      payload: { at: tapped },
    });
    expect(late.json().last_ok_at).toBe(tapped);
    const other = await owner();
    const otherView = await enable(other);
    moveTime(t, untilDue(otherView) - MINUTE);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${other.token}/alerts/`,
      headers: { 'idempotency-key': randomUUID(), ...other.proof },
      payload: { mode: 'real', location: lisbonAt(t.app) },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    moveTime(t, 40 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    expect(await dailyAlerts(other)).toEqual([]);
    expect(await dailyAlerts(o)).toEqual([]);
  });

  it('the reminder e-mail’s link asks once more, checks in once, and is spent', async () => {
    const o = await owner(1);
    const view = await enable(o);
    moveTime(t, untilDue(view));
    await settle(t.app);
    const link = reminders(o)[0]?.text.match(/https?:\/\/\S+\/api\/daily\/ok\/[\w-]+\//)?.[0] as string;
    const path = new URL(link).pathname;
    const asked = await t.app.inject({ method: 'GET', url: path });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain(`action="${path}?lang=`);
    expect((await get(o)).json().last_ok_at).not.toBe(new Date(t.clock.now()).toISOString());
    const done = await t.app.inject({ method: 'POST', url: path });
    expect(done.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: path })).statusCode).toBe(404);
    expect((await get(o)).json().status).toBe('waiting');
    moveTime(t, 31 * MINUTE);
    await settle(t.app);
    expect(await dailyAlerts(o)).toEqual([]);
    expect((await t.app.inject({ method: 'POST', url: '/api/daily/ok/not-a-link/' })).statusCode).toBe(404);
  });

  it('the reminder e-mail’s link answers in the owner’s language, also once spent', async () => {
    const o = await owner(1);
    await t.app.db.updateTable('users').set({ language: 'en' }).where('id', '=', o.user.id).execute();
    const view = await enable(o);
    moveTime(t, untilDue(view));
    await settle(t.app);
    const link = reminders(o)[0]?.text.match(/https?:\/\/\S+\/api\/daily\/ok\/[\w-]+\/\S*/)?.[0] as string;
    const { pathname, search } = new URL(link);
    const asked = await t.app.inject({ method: 'GET', url: `${pathname}${search}` });
    expect(asked.body).toContain('Tap to say you are OK today.');
    const action = asked.body.match(/action="([^"]+)"/)?.[1] as string;
    expect((await t.app.inject({ method: 'POST', url: action })).body).toContain('Today’s check-in is done.');
    for (const method of ['GET', 'POST'] as const) {
      const spent = await t.app.inject({ method, url: `${pathname}${search}` });
      expect(spent.statusCode).toBe(404);
      expect(spent.body).toContain('Link used or expired');
      expect(spent.body).not.toContain('Ligação usada');
    }
  });

  it('paused until a date: nothing is due before it, and it resumes by itself', async () => {
    const o = await owner(1);
    const resume = new Date(t.clock.now() + 3 * DAY).toISOString().slice(0, 10);
    const view = await enable(o, { paused_until: resume });
    expect(view.status).toBe('paused');
    expect(new Date(view.next_due_at).toISOString().slice(0, 10) >= resume).toBe(true);
    moveTime(t, DAY + MINUTE);
    await settle(t.app);
    expect(await dailyAlerts(o)).toEqual([]);
    expect((await get(o)).json().status).toBe('paused');
    moveTime(t, untilDue(view) + 31 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    expect(await dailyAlerts(o)).toHaveLength(1);
  });

  it('fires exactly once with two server processes sweeping at the same time', async () => {
    const o = await owner();
    const view = await enable(o);
    const second = await secondServer(t);
    try {
      await second.app.ready();
      moveTime(t, untilDue(view) + 30 * MINUTE);
      await Promise.all([settle(t.app), settle(second.app), settle(t.app), settle(second.app)]);
      await Promise.all([settle(t.app), settle(second.app)]);
      expect(await dailyAlerts(o)).toHaveLength(1);
      expect([...smsTo(t.app, o), ...smsTo(second.app, o)]).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it('a server down through several due times fires once at its start, naming the real last check-in', async () => {
    const o = await owner(1);
    const view = await enable(o);
    const okAt = t.clock.now();
    const since = new Intl.DateTimeFormat('en-GB', {
      timeZone: ZONE,
      weekday: 'long',
    }).format(okAt);
    const second = await secondServer(t, new ManualClock(Date.parse(view.next_due_at) + 3 * DAY + 3 * 3600_000));
    try {
      await second.app.ready();
      await second.app.periodic.runNow('jobs');
      await second.app.dispatcher.drain();
      const sms = smsTo(second.app, o).map((message) => message.body);
      expect(sms).toHaveLength(1);
      expect(sms[0]).toContain(`no check-in since ${since} `);
      expect(await dailyAlerts(o)).toHaveLength(1);
      const row = await t.app.db
        .selectFrom('daily_checkins')
        .select('next_due_at')
        .where('user_id', '=', o.user.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.next_due_at)).toBe(Date.parse(view.next_due_at) + 4 * DAY);
    } finally {
      await second.close();
    }
  });

  it('keeps the owner’s time across the spring change (Lisbon, 28 March 2027)', async () => {
    const o = await owner(1);
    const second = await secondServer(t, new ManualClock(Date.parse('2027-03-27T12:00:00Z')));
    try {
      await second.app.ready();
      const res = await put(o, { enabled: true, time: '09:00', every_days: 1 }, second.app);
      expect(res.json().next_due_at).toBe('2027-03-28T08:00:00.000Z');
    } finally {
      await second.close();
    }
  });
});
