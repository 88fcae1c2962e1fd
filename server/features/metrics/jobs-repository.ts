import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { jobKindNames } from '../../jobs/index.js';

/** The kinds of the registry: a job of any other has no handler to run it. */
const known = new Set<string>(jobKindNames);

/** Work waiting in the database, by kind (`sms:alert`, `job:checkin`…). */
export interface JobsReading {
  /** Jobs not done yet: waiting for their time, due, or being run. */
  queued: Map<string, number>;
  /** Jobs given up on after their last attempt, kept where operators see them. */
  failed: Map<string, number>;
  /** For each kind with a due job: how long the longest-waiting one has been due (ms). */
  oldestDueMs: Map<string, number>;
  /** Jobs of a kind the registry (server/jobs/kinds.ts) does not list, by that kind: no handler runs them. */
  unknownKinds: Map<string, number>;
}

/**
 * Reads the work the server still has to do, as the metrics report it: an SMS is a `deliveries`
 * row (`queued`, or `sending` while an attempt runs, until it is handed over; `failed` once no
 * retry is left), due when its job of kind `sms` is, and every other job a `jobs` row, removed
 * when it has run, parked with `failed_at` once out of attempts.
 */
export async function readJobs(db: Kysely<Database>, now: number): Promise<JobsReading> {
  const [sms, jobs] = await Promise.all([
    db
      .selectFrom('deliveries')
      .leftJoin('jobs', (join) => join.on('jobs.kind', '=', 'sms').onRef('jobs.subject', '=', 'deliveries.id'))
      .select(['deliveries.kind', 'deliveries.status'])
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        sql<number | null>`min(case when jobs.due_at <= ${now} and jobs.failed_at is null then jobs.due_at end)`.as(
          'oldest_due',
        ),
      ])
      .where('deliveries.status', 'in', ['queued', 'sending', 'failed'])
      .groupBy(['deliveries.kind', 'deliveries.status'])
      .execute(),
    db
      .selectFrom('jobs')
      .select('kind')
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        sql<number>`count(failed_at)`.as('failed'),
        sql<number | null>`min(case when due_at <= ${now} and failed_at is null then due_at end)`.as('oldest_due'),
      ])
      // The SMS jobs are counted with their deliveries, by the deliveries' kinds.
      .where('kind', '!=', 'sms')
      .groupBy('kind')
      .execute(),
  ]);
  const reading: JobsReading = {
    queued: new Map(),
    failed: new Map(),
    oldestDueMs: new Map(),
    unknownKinds: new Map(),
  };
  const add = (into: Map<string, number>, kind: string, count: number) =>
    into.set(kind, (into.get(kind) ?? 0) + Number(count));
  const due = (kind: string, oldest: number | null) => {
    if (oldest === null) return;
    const waited = Math.max(0, now - Number(oldest));
    reading.oldestDueMs.set(kind, Math.max(reading.oldestDueMs.get(kind) ?? 0, waited));
  };
  for (const row of sms) {
    const kind = `sms:${row.kind}`;
    if (row.status === 'failed') {
      add(reading.failed, kind, row.count);
      continue;
    }
    add(reading.queued, kind, row.count);
    due(kind, row.oldest_due);
  }
  for (const row of jobs) {
    if (!known.has(row.kind)) reading.unknownKinds.set(row.kind, Number(row.count));
    const kind = `job:${row.kind}`;
    add(reading.queued, kind, Number(row.count) - Number(row.failed));
    if (Number(row.failed) > 0) add(reading.failed, kind, row.failed);
    due(kind, row.oldest_due);
  }
  return reading;
}
