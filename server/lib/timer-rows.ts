import { type Expression, type InsertQueryBuilder, type InsertResult, type RawBuilder, sql } from 'kysely';
import { compiledInsert } from '../db/compiled-once.js';
import type { Database, Db } from '../db/schema.js';
import { orderedId } from './ids.js';

// The job engine's rows (server/lib/timers.ts): how a change writes, moves, cancels and reads the
// jobs it needs, inside its own transaction.

/** The timer row `setTimer` writes. */
export const timerRow = ({ id, kind, subject, dueAt, now, lease }: TimerInput) => ({
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

/** A job to write: its kind, subject and due time, and the lease of a process that runs it once written (`reserve`). */
export interface TimerInput {
  /** Given by `reserve` for a job written leased, which its process runs by that id. */
  id?: string;
  kind: string;
  subject: string;
  dueAt: number;
  now: number;
  lease?: { until: number; token: string } | undefined;
}

/** What a timer already set for (kind, subject) becomes: due at the new time, unless `keep` finds it waiting. */
const onTimerConflict = (mode: 'replace' | 'keep') => (query: InsertQueryBuilder<Database, 'timers', InsertResult>) =>
  query.onConflict((oc) => {
    const update = oc.columns(['kind', 'subject']).doUpdateSet({
      due_at: (eb) => eb.ref('excluded.due_at'),
      attempts: 0,
      lease_until: null,
      lease_token: null,
      failed_at: null,
      last_error: null,
    });
    // A failed job set again starts afresh; `keep` leaves only a waiting one's due time alone.
    return mode === 'replace'
      ? update
      : update.where((eb) => eb.or([eb('timers.lease_token', 'is not', null), eb('timers.failed_at', 'is not', null)]));
  });

/** `setTimer`'s statement for timer rows, for a caller that runs it inside one of its own (a WITH). */
export const timersInsert = (db: Db, rows: ReturnType<typeof timerRow>[], mode: 'replace' | 'keep' = 'replace') =>
  onTimerConflict(mode)(db.insertInto('timers').values(rows));

/** `setTimer`'s statement in each mode, built once (`compiledInsert`). */
const settingTimer = {
  replace: compiledInsert('timers', onTimerConflict('replace')),
  keep: compiledInsert('timers', onTimerConflict('keep')),
};

/**
 * Sets the (kind, subject) timer to `dueAt`, in `db` (a transaction sets it with the change
 * that needs it). `replace` moves a timer already set (an extended check-in); `keep` leaves a
 * waiting timer's due time alone (a summary already due sooner) but still sets a timer whose
 * run is in progress, so what that run could not see gets its own turn.
 */
export async function setTimer(
  db: Db,
  timer: { kind: string; subject: string; dueAt: number; now: number },
  mode: 'replace' | 'keep' = 'replace',
): Promise<void> {
  await settingTimer[mode](db, [timerRow(timer)]);
}

/** Writes several new jobs in one statement (`setTimer`'s, replacing any set for the same kind and subject). */
export async function setTimers(db: Db, timers: TimerInput[]): Promise<void> {
  if (timers.length > 0) await settingTimer.replace(db, timers.map(timerRow));
}

/** Removes the (kind, subject) timer: it will not run (a run in progress finishes). */
export async function cancelTimer(db: Db, kind: string, subject: string): Promise<void> {
  await db.deleteFrom('timers').where('kind', '=', kind).where('subject', '=', subject).execute();
}

/** When the (kind, subject) timer is due, or null when none is set. */
export async function timerDueAt(db: Db, kind: string, subject: string): Promise<number | null> {
  const row = await db
    .selectFrom('timers')
    .select('due_at')
    .where('kind', '=', kind)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row ? Number(row.due_at) : null;
}

/**
 * True while the (kind, subject) job is held by the run of lease token `token`: a handler's write
 * made conditional on it changes nothing once another run took the job over (`DueTimer.leaseToken`).
 */
export const heldBy = (
  kind: string,
  subject: Expression<string>,
  token: Expression<string> | string,
): RawBuilder<boolean> =>
  sql<boolean>`exists (select 1 from timers where timers.kind = ${kind} and timers.subject = ${subject} and timers.lease_token = ${token})`;
