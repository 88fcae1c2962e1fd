import { type Expression, type InsertQueryBuilder, type InsertResult, type RawBuilder, sql } from 'kysely';
import { compiledInsert } from '../db/compiled-once.js';
import type { Database, Db } from '../db/schema.js';
import { orderedId } from '../lib/ids.js';
import type { JobKind } from './kinds.js';

// How a change writes, moves, cancels and reads the jobs it needs, inside its own transaction.
// Each takes the kinds of the registry (kinds.ts) only; an engine of other kinds (a test's) names
// its own, `enqueue<string>(…)`.

/** A job to write: its kind, subject and due time, and the lease of the process that claimed it at write (`claimAtWrite`). */
export interface JobInput<K extends string = JobKind> {
  /** Given by `claimAtWrite` for a job written leased, which its process runs by that id. */
  id?: string;
  kind: K;
  subject: string;
  dueAt: number;
  now: number;
  lease?: { until: number; token: string } | undefined;
}

/** The job row `enqueue` writes. */
export const jobRow = ({ id, kind, subject, dueAt, now, lease }: JobInput<string>) => ({
  id: id ?? orderedId(),
  kind,
  subject,
  due_at: dueAt,
  // Written leased, the run it was written for is its first.
  attempts: lease ? 1 : 0,
  lease_until: lease?.until ?? null,
  lease_token: lease?.token ?? null,
  failed_at: null,
  last_error: null,
  created_at: now,
});

/** What a job already written for (kind, subject) becomes: due at the new time, unless `keep` finds it waiting. */
const onJobConflict = (mode: 'replace' | 'keep') => (query: InsertQueryBuilder<Database, 'jobs', InsertResult>) =>
  query.onConflict((oc) => {
    const update = oc.columns(['kind', 'subject']).doUpdateSet({
      due_at: (eb) => eb.ref('excluded.due_at'),
      attempts: 0,
      lease_until: null,
      lease_token: null,
      failed_at: null,
      last_error: null,
    });
    // A failed job enqueued again starts afresh; `keep` leaves only a waiting one's due time alone.
    return mode === 'replace'
      ? update
      : update.where((eb) => eb.or([eb('jobs.lease_token', 'is not', null), eb('jobs.failed_at', 'is not', null)]));
  });

/** `enqueue`'s statement for job rows, for a caller that runs it inside one of its own (a WITH). */
export const jobsInsert = (db: Db, rows: ReturnType<typeof jobRow>[], mode: 'replace' | 'keep' = 'replace') =>
  onJobConflict(mode)(db.insertInto('jobs').values(rows));

/** `enqueue`'s statement in each mode, built once (`compiledInsert`). */
const enqueueing = {
  replace: compiledInsert('jobs', onJobConflict('replace')),
  keep: compiledInsert('jobs', onJobConflict('keep')),
};

/**
 * Writes the (kind, subject) job due at `dueAt`, in `db` (a transaction writes it with the change
 * that needs it). `replace` moves a job already written (an extended check-in); `keep` leaves a
 * waiting job's due time alone (a summary already due sooner) but still writes a job whose run is
 * in progress, so what that run could not see gets its own turn.
 */
export async function enqueue<K extends string = JobKind>(
  db: Db,
  job: Omit<JobInput<NoInfer<K>>, 'id' | 'lease'>,
  mode: 'replace' | 'keep' = 'replace',
): Promise<void> {
  await enqueueing[mode](db, [jobRow(job)]);
}

/** Writes several new jobs in one statement (`enqueue`'s, replacing any written for the same kind and subject). */
export async function enqueueMany<K extends string = JobKind>(db: Db, jobs: JobInput<NoInfer<K>>[]): Promise<void> {
  if (jobs.length > 0) await enqueueing.replace(db, jobs.map(jobRow));
}

/** Removes the (kind, subject) job: it will not run (a run in progress finishes). */
export async function cancelJob<K extends string = JobKind>(db: Db, kind: NoInfer<K>, subject: string): Promise<void> {
  await db.deleteFrom('jobs').where('kind', '=', kind).where('subject', '=', subject).execute();
}

/** When the (kind, subject) job is due, or null when there is none. */
export async function jobDueAt<K extends string = JobKind>(
  db: Db,
  kind: NoInfer<K>,
  subject: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('jobs')
    .select('due_at')
    .where('kind', '=', kind)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row ? Number(row.due_at) : null;
}

/**
 * True while the (kind, subject) job is held by the run of lease token `token`: a handler's write
 * made conditional on it changes nothing once another run took the job over (`DueJob.leaseToken`).
 */
export const heldBy = (
  kind: JobKind,
  subject: Expression<string>,
  token: Expression<string> | string,
): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from jobs where jobs.kind = ${kind} and jobs.subject = ${subject} and jobs.lease_token = ${token})`;

/** How many jobs there are of each kind not in `known`: those no handler of a process knows. */
export async function jobsOfOtherKinds(db: Db, known: string[]): Promise<{ kind: string; count: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('kind')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .$if(known.length > 0, (query) => query.where('kind', 'not in', known))
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, count: Number(row.count) }));
}
