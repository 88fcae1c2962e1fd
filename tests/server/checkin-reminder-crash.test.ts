import { describe, expect, it, vi } from 'vitest';
import { checkinJobs } from '../../server/features/checkins/jobs.js';
import { createJobs } from '../../server/jobs/index.js';
import { JOB_LEASE_MS } from '../../server/lib/reliability.js';
import { nextIp } from './accounts-helpers.js';
import { checkinOwner, settle, startCheckin, subscribedBrowser } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

// The reminder of an overdue check-in is a job set in the same transaction as the overdue mark:
// a process that dies after marking it, in the middle of reminding, leaves the reminder to any
// other once its lease lapses, and an e-mail that fails is sent again; the owner is reminded once.
describe(`an overdue check-in's reminder survives the process that marked it, and a failed e-mail (${dbLabel})`, () => {
  const t = suiteApp();

  it('is sent by another process when the one that marked the check-in overdue died while reminding', async () => {
    const o = await checkinOwner(t.app);
    const started = await startCheckin(t.app, o.token, { body: { duration_seconds: 60 }, ip: nextIp() });
    expect(started.statusCode, started.body).toBe(201);
    moveTime(t, MINUTE);
    const reminders = () =>
      t.app.outbox.emails.filter((mail) => mail.to === o.user.email && mail.subject === 'Alerta: are you OK?');

    // The process that dies: its mail server never answers, and it renews no lease once gone.
    const hung = { ...t.app.mail, send: () => new Promise<never>(() => {}) };
    const handlers = checkinJobs({ ...t.app, mail: hung, jobs: { kick() {}, runDue: async () => 0 } });
    const dying = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock: t.clock,
      renewMs: HOUR,
      kinds: { checkin: {}, 'checkin-reminder': {} },
    });
    dying.handle('checkin', handlers.checkin);
    dying.handle('checkin-reminder', handlers.reminder);
    void dying.runDue();
    await expect
      .poll(
        async () =>
          (
            await t.app.db
              .selectFrom('checkins')
              .select('status')
              .where('id', '=', started.json().id)
              .executeTakeFirst()
          )?.status,
      )
      .toBe('overdue');
    // It dies there: it takes nothing more (its engine would otherwise go on claiming beside its hung send).
    await dying.stop(0);

    // Its lease lapses: another process reminds the owner, once.
    moveTime(t, JOB_LEASE_MS + 1000);
    await t.app.jobs.runDue();
    await t.app.jobs.runDue();
    expect(reminders()).toHaveLength(1);
  });

  it('a reminder e-mail that fails to send is sent again by the job engine, once, and the browsers are notified once', async () => {
    const o = await checkinOwner(t.app);
    const endpoint = await subscribedBrowser(t.app, o, 'checkin-retry');
    const started = await startCheckin(t.app, o.token, { body: { duration_seconds: 60 }, ip: nextIp() });
    expect(started.statusCode, started.body).toBe(201);
    const reminders = () =>
      t.app.outbox.emails.filter((mail) => mail.to === o.user.email && mail.subject === 'Alerta: are you OK?');
    const send = vi.spyOn(t.app.mail, 'send').mockRejectedValueOnce(new Error('mail provider down'));
    try {
      moveTime(t, MINUTE);
      await settle(t.app);
      await settle(t.app);
      expect(send).toHaveBeenCalledTimes(1);
      expect(reminders()).toHaveLength(0);
      // The engine's backoff: the same job runs again.
      moveTime(t, 10_000);
      await settle(t.app);
      await settle(t.app);
    } finally {
      send.mockRestore();
    }
    expect(reminders()).toHaveLength(1);
    expect(t.app.outbox.push.filter((push) => push.endpoint === endpoint)).toHaveLength(1);
    const left = await t.app.db.selectFrom('jobs').select('kind').where('subject', '=', started.json().id).execute();
    expect(left.map((timer) => timer.kind)).toEqual(['checkin']);
  });
});
