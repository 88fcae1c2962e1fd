import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import {
  type CheckinOwner,
  checkinOwner,
  clockTime,
  settle,
  startCheckin,
  subscribedBrowser,
} from './checkin-fixtures.js';
import { dbKind, dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const ZONE = 'Europe/Lisbon';
const SETTINGS = '/api/users/me/daily-checkin/';
const okPath = (token: string) => `/api/emergency/public/${token}/daily/ok/`;

// The daily check-in's reminder is never lost, its e-mail link and its signs of life are
// all-or-nothing, and it is silent while the owner's plan lacks it.
describe(`daily check-in, reliably (${dbLabel})`, () => {
  const t = suiteApp();
  const owner = async (): Promise<CheckinOwner> => {
    const o = await checkinOwner(t.app, { contacts: 1 });
    await t.app.db.updateTable('users').set({ time_zone: ZONE }).where('id', '=', o.user.id).execute();
    return o;
  };
  const session = async (o: CheckinOwner, app: FastifyInstance = t.app) => ({
    authorization: `Bearer ${await app.tokens.signAccess(o.user.id, o.sessionId)}`,
  });
  const get = async (o: CheckinOwner) => t.app.inject({ method: 'GET', url: SETTINGS, headers: await session(o) });
  /** Due at the owner's clock time `ahead` from now, every day, with a 30-minute grace. */
  const enable = async (o: CheckinOwner, ahead = 2 * 3600_000) => {
    const time = clockTime(t.clock.now() + ahead, ZONE);
    const res = await t.app.inject({
      method: 'PUT',
      url: SETTINGS,
      headers: await session(o),
      payload: { enabled: true, time, every_days: 1, grace_minutes: 30 },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const untilDue = (view: { next_due_at: string }) => Date.parse(view.next_due_at) - t.clock.now();
  const reminders = (o: CheckinOwner) =>
    t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /OK today/.test(mail.subject));
  const linkOf = (o: CheckinOwner) =>
    new URL(reminders(o)[0]?.text.match(/https?:\/\/\S+\/api\/daily\/ok\/[\w-]+\//)?.[0] as string).pathname;
  const dailyAlerts = (o: CheckinOwner) =>
    t.app.db
      .selectFrom('alerts')
      .select('id')
      .where('user_id', '=', o.user.id)
      .where('reason', '=', 'missed_daily')
      .execute();
  const row = (o: CheckinOwner) =>
    t.app.db.selectFrom('daily_checkins').selectAll().where('user_id', '=', o.user.id).executeTakeFirstOrThrow();

  it('a reminder e-mail that fails to send is sent again by the job engine, with its link, the notification once', async () => {
    const o = await owner();
    const endpoint = await subscribedBrowser(t.app, o, 'daily-retry');
    const view = await enable(o);
    const send = vi.spyOn(t.app.mail, 'send').mockRejectedValueOnce(new Error('mail provider down'));
    try {
      moveTime(t, untilDue(view));
      await settle(t.app);
      await settle(t.app);
      expect(send).toHaveBeenCalledTimes(1);
      expect(reminders(o)).toHaveLength(0);
      moveTime(t, 10_000);
      await settle(t.app);
    } finally {
      send.mockRestore();
    }
    expect(reminders(o)).toHaveLength(1);
    expect(t.app.outbox.push.filter((push) => push.endpoint === endpoint)).toHaveLength(1);
    const done = await t.app.inject({ method: 'POST', url: linkOf(o) });
    expect(done.statusCode).toBe(200);
    expect((await get(o)).json().status).toBe('waiting');
  });

  it('a daily reminder just after a check-in reminder still goes with its one-click link', async () => {
    const o = await owner();
    const view = await enable(o, 4 * MINUTE);
    expect((await startCheckin(t.app, o.token, { body: { duration_seconds: 60 } })).statusCode).toBe(201);
    moveTime(t, 61_000);
    await settle(t.app);
    await settle(t.app);
    const checkinReminders = t.app.outbox.emails.filter((mail) => mail.to === o.user.email);
    expect(checkinReminders).toHaveLength(1);
    moveTime(t, untilDue(view));
    await settle(t.app);
    await settle(t.app);
    expect(reminders(o)).toHaveLength(1);
    expect(linkOf(o)).toMatch(/^\/api\/daily\/ok\//);
  });

  it('the e-mail link is not spent when its check-in fails: the next click checks in', async () => {
    const o = await owner();
    const view = await enable(o);
    moveTime(t, untilDue(view));
    await settle(t.app);
    await settle(t.app);
    const path = linkOf(o);
    const transaction = vi.spyOn(t.app.db, 'transaction').mockImplementationOnce(() => {
      throw new Error('database unavailable');
    });
    try {
      expect((await t.app.inject({ method: 'POST', url: path })).statusCode).toBe(500);
    } finally {
      transaction.mockRestore();
    }
    expect((await get(o)).json().status).toBe('due');
    const done = await t.app.inject({ method: 'POST', url: path });
    expect(done.statusCode).toBe(200);
    expect((await get(o)).json().status).toBe('waiting');
    expect((await t.app.inject({ method: 'POST', url: path })).statusCode).toBe(404);
  });

  it('an earlier sign of life arriving while a later one commits never moves the schedule back', async () => {
    const o = await owner();
    await enable(o);
    const setAt = t.clock.now();
    moveTime(t, 10 * MINUTE);
    const later = t.clock.now();
    const earlier = new Date(setAt + 5 * MINUTE).toISOString();
    const tap = () =>
      t.app.inject({ method: 'POST', url: okPath(o.token), headers: o.proof, payload: { at: earlier } });
    const laterSign = { anchor_at: later, last_ok_at: later };
    let answer: Awaited<ReturnType<typeof tap>>;
    if (dbKind === 'postgres') {
      // The later sign holds the row while the earlier one is read and written.
      answer = await t.app.db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('daily_checkins').set(laterSign).where('user_id', '=', o.user.id).execute();
          const pending = tap();
          for (;;) {
            const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query ilike '%daily_checkins%'`.execute(
              t.app.db,
            );
            if (Number(waiting.rows[0]?.n) > 0) break;
          }
          return { pending };
        })
        .then(({ pending }) => pending);
    } else {
      // SQLite runs one writer at a time: the earlier sign comes after the later one commits.
      await t.app.db.updateTable('daily_checkins').set(laterSign).where('user_id', '=', o.user.id).execute();
      answer = await tap();
    }
    expect(answer.statusCode, answer.body).toBe(200);
    const after = await row(o);
    expect(Number(after.anchor_at)).toBe(later);
    expect(Number(after.last_ok_at)).toBe(later);
  });

  it('an owner whose plan lapsed is neither reminded nor alerted for (status paused), and it resumes with the plan', async () => {
    const o = await owner();
    const view = await enable(o);
    await t.app.db.updateTable('subscriptions').set({ status: 'canceled' }).where('user_id', '=', o.user.id).execute();
    expect((await get(o)).json()).toMatchObject({ enabled: true, status: 'paused' });
    moveTime(t, untilDue(view));
    await settle(t.app);
    moveTime(t, 31 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    expect(reminders(o)).toHaveLength(0);
    expect(await dailyAlerts(o)).toEqual([]);
    expect(Number((await row(o)).next_due_at)).toBe(Date.parse(view.next_due_at) + DAY);
    await t.app.db
      .updateTable('subscriptions')
      .set({ status: 'active', current_period_end: t.clock.now() + 30 * DAY })
      .where('user_id', '=', o.user.id)
      .execute();
    const resumed = (await get(o)).json();
    expect(resumed.status).toBe('waiting');
    moveTime(t, untilDue(resumed));
    await settle(t.app);
    await settle(t.app);
    expect(reminders(o)).toHaveLength(1);
    moveTime(t, 31 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    expect(await dailyAlerts(o)).toHaveLength(1);
  });
});
