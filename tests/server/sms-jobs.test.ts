import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate, migrateToLatest } from '../../server/db/index.js';
import { adoptOlderDeliveries, NOT_FOR_OLDER_CLAIMS } from '../../server/features/alerts/deliveries.js';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { createJobs, kindSettings } from '../../server/jobs/index.js';
import type { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import type { SmsMessage, SmsPort } from '../../server/providers/sms/port.js';
import { appWithClockAhead, queuedSms } from './alerts-fixtures.js';
import { dbLabel, freshDatabase, type TestApp } from './helper.js';
import { secondConnection } from './second-process.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const APP_URL = 'https://alerta.example';

/** A provider as a test holds it: what it took, sends that may never be answered, and `find` from what it took. */
function provider(options: { answer?: boolean; fail?: string } = {}) {
  const took: (SmsMessage & { sid: string })[] = [];
  const port: SmsPort = {
    name: 'outbox',
    async send(message) {
      if (options.fail) throw new Error(options.fail);
      const sid = `SM${newId()}`;
      took.push({ ...message, sid });
      if (options.answer === false) await new Promise(() => {});
      return { providerMessageId: sid };
    },
    async find(lookup) {
      const held = took.find((m) => m.to === lookup.to && m.body === lookup.body);
      return held && { providerMessageId: held.sid };
    },
    onStatus() {},
  };
  return { port, took };
}

// Each SMS is a job of the one job engine: a `jobs` row of kind `sms` beside its delivery,
// parked where the operator sees it, taken over when its process's lease lapses, and, during a
// rolling deploy, never sent a second time by a process of the version before.
describe(`SMS as jobs of the job engine (${dbLabel})`, () => {
  let t: TestApp;
  // An hour ahead of the app's clock: the app's own engine finds none of these jobs due.
  let clock: ManualClock;
  let phone = 0;
  appWithClockAhead((ahead) => {
    ({ t, clock } = ahead);
  });

  /** A real alert's SMS to a number of its own (its text carries the contact's key), queued with its job due now. */
  async function queued() {
    phone += 1;
    const to = `+3519690${String(phone).padStart(5, '0')}`;
    const { id, read } = await queuedSms(t.app, { appUrl: APP_URL, to, now: clock.now() });
    const job = () =>
      t.app.db.selectFrom('jobs').selectAll().where('kind', '=', 'sms').where('subject', '=', id).executeTakeFirst();
    return { id, to, read, job };
  }

  it('parks an SMS job out of attempts as failed in `jobs`, counted, and its delivery shows failed', async () => {
    const d = await queued();
    // The process's engine, with the SMS's settings but two attempts, and no jitter.
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock,
      log: { error() {}, warn() {} } as never,
      random: () => 0.5,
      kinds: { sms: { ...kindSettings({ SMS_CONCURRENCY: 10 }).sms, attempts: 2 } },
    });
    const refusing = provider({ fail: 'carrier unreachable' });
    const sender = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: refusing.port,
      clock,
      jobs: engine,
    });
    await sender.drain();
    expect(await d.read()).toMatchObject({ status: 'queued', attempts: 1, last_error: 'carrier unreachable' });
    // The job waits the SMS's first backoff (15 s, no jitter at 0.5).
    expect(await d.job()).toMatchObject({ attempts: 1, due_at: clock.now() + 15 * SECOND, failed_at: null });
    clock.advance(15 * SECOND);
    await sender.drain();
    const parked = await d.job();
    expect(parked).toMatchObject({ attempts: 2, failed_at: clock.now(), lease_token: null });
    expect(parked?.last_error).toContain('carrier unreachable');
    expect(await d.read()).toMatchObject({ status: 'failed', attempts: 2, last_error: 'carrier unreachable' });
    expect(engine.failedCounts.get('sms')).toBe(1);
    // Parked, it is not tried again.
    clock.advance(HOUR);
    await sender.drain();
    expect((await d.read()).attempts).toBe(2);
  });

  it('an SMS whose process stalled past its lease is taken over by another engine, asked of the provider, and sent once', async () => {
    const d = await queued();
    const held = provider({ answer: false });
    // Stalled: its renewals stop with it (renewed once an hour), its send never answered.
    const stalled = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: held.port,
      clock,
      renewMs: HOUR,
    });
    const stalling = stalled.drain().catch(() => undefined);
    for (let i = 0; i < 200 && held.took.length === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(held.took.map((m) => m.to)).toEqual([d.to]);
    const takenAt = clock.now();
    expect(await d.read()).toMatchObject({ status: 'sending', attempts: 1 });
    // Stalled for good: it takes nothing more (its run waits for ever).
    await stalled.stop(0);
    void stalling;

    const other = await secondConnection(t);
    try {
      const second = createDispatcher({ db: other.db, dialect: other.dialect, sms: held.port, clock });
      // Within the lease nobody else takes it.
      expect(await second.runOnce()).toBe(0);
      clock.advance(7 * SECOND);
      expect(await second.runOnce()).toBe(1);
      // The provider holds the stalled attempt's SMS: recorded with its id, not sent again.
      expect(held.took).toHaveLength(1);
      expect(await d.read()).toMatchObject({
        status: 'sent',
        attempts: 2,
        unanswered_since: takenAt,
        provider_message_id: held.took[0]?.sid,
      });
      expect(await d.job()).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  /** The claim of the version before the engine sent SMS (its two arms), as a process still running it asks. */
  const olderClaimFinds = async (ids: string[], at: number) =>
    (
      await t.app.db
        .selectFrom('deliveries')
        .select('id')
        .where('id', 'in', ids)
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'queued'), eb('next_attempt_at', '<=', at)]),
            eb.and([eb('status', '=', 'sending'), eb('claimed_until', '<', at)]),
          ]),
        )
        .execute()
    ).map((row) => row.id);

  it('a rolling deploy: the older claim finds none of the SMS the engine sends, and what an older process queued gets its job and goes once', async () => {
    // Written by this version: queued, and being sent.
    const mine = await queued();
    const sending = provider({ answer: false });
    const stalled = createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: sending.port, clock, renewMs: HOUR });
    const stalling = stalled.drain().catch(() => undefined);
    for (let i = 0; i < 200 && sending.took.length === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    // Stalled for good: it takes nothing more (its run waits for ever).
    await stalled.stop(0);
    void stalling;
    const waiting = await queued();
    expect(await olderClaimFinds([mine.id, waiting.id], clock.now() + 365 * 24 * HOUR)).toEqual([]);

    // Queued by a process of the version before: due by `next_attempt_at`, no job; and one it is sending.
    const older = await queued();
    const olderSending = await queued();
    await t.app.db.deleteFrom('jobs').where('subject', 'in', [older.id, olderSending.id]).execute();
    await t.app.db
      .updateTable('deliveries')
      .set({ next_attempt_at: clock.now() - SECOND })
      .where('id', '=', older.id)
      .execute();
    await t.app.db
      .updateTable('deliveries')
      .set({ status: 'sending', attempts: 1, next_attempt_at: clock.now(), claimed_until: clock.now() + 5 * SECOND })
      .where('id', '=', olderSending.id)
      .execute();
    expect(await adoptOlderDeliveries(t.app.db, clock.now())).toBeGreaterThanOrEqual(2);
    expect(await olderClaimFinds([older.id], clock.now() + 365 * 24 * HOUR)).toEqual([]);
    expect((await older.job())?.due_at).toBe(clock.now() - SECOND);
    expect((await olderSending.job())?.due_at).toBe(clock.now() + 5 * SECOND);
    // Nothing left to adopt.
    expect(await adoptOlderDeliveries(t.app.db, clock.now())).toBe(0);

    const fresh = provider();
    const sender = createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: fresh.port, clock });
    await sender.drain();
    expect(fresh.took.map((m) => m.to)).toContain(older.to);
    // Still the older process's while its lease holds: not sent by this one.
    expect(fresh.took.map((m) => m.to)).not.toContain(olderSending.to);
    clock.advance(6 * SECOND);
    await sender.drain();
    // Its lease lapsed (the older process died): asked of the provider, not held there, sent once.
    expect(fresh.took.filter((m) => m.to === olderSending.to)).toHaveLength(1);
    expect(fresh.took.filter((m) => m.to === older.to)).toHaveLength(1);
    expect((await olderSending.read()).status).toBe('sent');
    // The stalled one of this version stays its own until its lease lapses too.
    expect(fresh.took.filter((m) => m.to === mine.to)).toHaveLength(0);
  });
});

// A database from before the SMS were jobs: every unfinished delivery gets its job, out of reach
// of an older process's claim; back down, the deliveries are due as their jobs were.
it(`gives every unfinished delivery its SMS job (${dbLabel})`, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  const { handle, drop } = await freshDatabase(dataDir);
  const schema = handle.pgSchema;
  const migrateTo = (name: string) => migrate(handle.db, schema, (migrator) => migrator.migrateTo(name));
  try {
    await migrateTo('2026112813-contact-replies');
    await sql`insert into users (id, username, email, password_hash, email_verified, language, alert_countdown_seconds, password_changed_at, created_at)
              values ('u1', 'ana', 'ana@example.com', 'x', 1, 'pt', 5, 0, 0)`.execute(handle.db);
    await sql`insert into alerts (id, public_id, user_id, mode, idempotency_key, message, created_at)
              values ('a1', 'p1', 'u1', 'real', 'k1', 'help', 0)`.execute(handle.db);
    const delivery = (id: string, status: string, nextAttemptAt: number, claimedUntil: number | null) =>
      sql`insert into deliveries (id, alert_id, contact_name, phone_number, body, status, attempts, next_attempt_at, claimed_until, provider_message_id, last_error, created_at, updated_at)
          values (${id}, 'a1', 'Ana', '+351910000001', 'help', ${status}, 1, ${nextAttemptAt}, ${claimedUntil}, null, null, 0, 100)`.execute(
        handle.db,
      );
    await delivery('queued', 'queued', 5000, null);
    await delivery('sending', 'sending', 1000, 7000);
    await delivery('sent', 'sent', 1000, null);
    await migrateToLatest(handle.db, schema);
    const jobs = await handle.db
      .selectFrom('jobs')
      .select(['kind', 'subject', 'due_at', 'lease_until', 'attempts'])
      .orderBy('subject')
      .execute();
    expect(jobs.map((job) => ({ ...job, due_at: Number(job.due_at) }))).toEqual([
      { kind: 'sms', subject: 'queued', due_at: 5000, lease_until: null, attempts: 0 },
      { kind: 'sms', subject: 'sending', due_at: 7000, lease_until: null, attempts: 0 },
    ]);
    const rows = await handle.db.selectFrom('deliveries').select(['id', 'next_attempt_at']).orderBy('id').execute();
    expect(rows.map((row) => [row.id, Number(row.next_attempt_at)])).toEqual([
      ['queued', NOT_FOR_OLDER_CLAIMS],
      ['sending', NOT_FOR_OLDER_CLAIMS],
      ['sent', 1000],
    ]);
    // And back: due as their jobs were, a `sending` one taken over at once.
    await migrateTo('2026112813-contact-replies');
    const back = await sql<{
      id: string;
      next_attempt_at: number;
      claimed_until: number | null;
    }>`select id, next_attempt_at, claimed_until from deliveries order by id`.execute(handle.db);
    expect(
      back.rows.map((row) => [
        row.id,
        Number(row.next_attempt_at),
        row.claimed_until === null ? null : Number(row.claimed_until),
      ]),
    ).toEqual([
      ['queued', 5000, null],
      ['sending', 7000, 0],
      ['sent', 1000, null],
    ]);
    expect((await sql`select id from timers where kind = 'sms'`.execute(handle.db)).rows).toEqual([]);
  } finally {
    await handle.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
