import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../server/db/index.js';
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
// parked where the operator sees it, and taken over when its process's lease lapses.
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
});

// A database from before the SMS were jobs: every unfinished delivery gets its job, out of reach
// of an older process's claim; then the deliveries' own queue columns go, with the recurring job
// that adopted an older process's SMS. Back down, the deliveries are due as their jobs were.
it(`gives every unfinished delivery its SMS job, then drops the deliveries' queue (${dbLabel})`, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  const { handle, drop } = await freshDatabase(dataDir);
  const schema = handle.pgSchema;
  const migrateTo = (name: string) => migrate(handle.db, schema, (migrator) => migrator.migrateTo(name));
  /** The queue columns, while they exist. */
  const queue = async () =>
    (
      await sql<{
        id: string;
        next_attempt_at: number;
        claimed_until: number | null;
      }>`select id, next_attempt_at, claimed_until from deliveries order by id`.execute(handle.db)
    ).rows.map((row) => [
      row.id,
      Number(row.next_attempt_at),
      row.claimed_until === null ? null : Number(row.claimed_until),
    ]);
  /** What the version with both the jobs and the queue columns writes in `next_attempt_at`: never due. */
  const outOfReach = Number.MAX_SAFE_INTEGER;
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
    await migrateTo('2026112820-sms-jobs');
    // Up to 2026120705-sms-queue-columns the jobs' table is called `timers` (2026120706-jobs renames it).
    const jobs = async () =>
      (
        await sql<{
          kind: string;
          subject: string;
          due_at: number;
          lease_until: number | null;
          attempts: number;
        }>`select kind, subject, due_at, lease_until, attempts from timers where kind = 'sms' order by subject`.execute(
          handle.db,
        )
      ).rows;
    const given = [
      { kind: 'sms', subject: 'queued', due_at: 5000, lease_until: null, attempts: 0 },
      { kind: 'sms', subject: 'sending', due_at: 7000, lease_until: null, attempts: 0 },
    ];
    expect((await jobs()).map((job) => ({ ...job, due_at: Number(job.due_at) }))).toEqual(given);
    expect(await queue()).toEqual([
      ['queued', outOfReach, null],
      ['sending', outOfReach, 7000],
      ['sent', 1000, null],
    ]);
    await sql`insert into timers (id, kind, subject, due_at, attempts, created_at)
              values ('older', 'sms-of-older-processes', 'recurring', 0, 0, 0)`.execute(handle.db);

    await migrateTo('2026120705-sms-queue-columns');
    expect((await jobs()).map((job) => ({ ...job, due_at: Number(job.due_at) }))).toEqual(given);
    const [row] = (await sql<Record<string, unknown>>`select * from deliveries where id = 'queued'`.execute(handle.db))
      .rows;
    expect(row).toMatchObject({ id: 'queued', status: 'queued' });
    expect(Object.keys(row ?? {})).not.toContain('next_attempt_at');
    expect(Object.keys(row ?? {})).not.toContain('claimed_until');
    const adopting = await sql`select id from timers where kind = 'sms-of-older-processes'`.execute(handle.db);
    expect(adopting.rows).toEqual([]);

    // And back: due as their jobs were, a `sending` one taken over at once; a finished one's
    // `next_attempt_at` is out of the older claim's reach.
    await migrateTo('2026112813-contact-replies');
    expect(await queue()).toEqual([
      ['queued', 5000, null],
      ['sending', 7000, 0],
      ['sent', outOfReach, null],
    ]);
    expect((await sql`select id from timers where kind = 'sms'`.execute(handle.db)).rows).toEqual([]);
  } finally {
    await handle.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
