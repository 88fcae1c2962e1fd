import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { groupsWrites, inGroupedTransaction, inWriteTransaction } from '../db/grouped-transactions.js';
import type { Dialect } from '../db/index.js';
import type { Database, Db, Job } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { backoffMs } from '../lib/reliability.js';
import type { Kind } from './types.js';

// The job engine's (engine.ts) bookkeeping of one run: its lease kept while it runs, its failure
// recorded, its row removed once it is done.

/** How a run's lease ended: still the run's, enqueued again by a change while it ran, or taken by another process. */
export type LeaseState = 'held' | 'released' | 'lost';

/** What a run's bookkeeping needs of its engine: the database, the clock, the log and the engine's numbers (ms). */
export interface RunDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'> | undefined;
  leaseMs: number;
  renewMs: number;
  /** Source of the backoff's jitter, in [0, 1). */
  random: () => number;
}

/**
 * Renews the lease while the run lasts; aborts `controller` when another process has taken the
 * job. `holds` is what a run checks right before an effect it cannot take back, since a renewal
 * may have been missed (the process stalled) without the signal having fired yet: while more than
 * half the lease it last wrote is left on the clock (the database's, on a monotonic clock), no
 * other process can have taken the job and it answers at once; later it asks the database,
 * renewing the lease when it is still the run's.
 */
export function keepLease(
  deps: RunDeps,
  job: Job,
  token: string,
  controller: AbortController,
): { stop(): LeaseState; holds(): Promise<boolean> } {
  const { db, dialect, clock, leaseMs, renewMs, log } = deps;
  let state: LeaseState = 'held';
  // Until when the lease this run last wrote (or its job was written with) runs.
  let heldUntil = Number(job.lease_until ?? 0);
  const renewal = (on: Db, until: number) =>
    on
      .updateTable('jobs')
      .set({ lease_until: until })
      .where('id', '=', job.id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
  /** Renews the lease if it is still the run's, and keeps what became of it. */
  const renew = async (): Promise<LeaseState> => {
    const until = clock.now() + leaseMs;
    // On SQLite in the commit of its turn's other writes.
    const renewed = await (groupsWrites(dialect)
      ? inGroupedTransaction(db, (trx) => renewal(trx, until))
      : renewal(db, until));
    if (Number(renewed.numUpdatedRows) > 0) heldUntil = until;
    if (Number(renewed.numUpdatedRows) > 0 || state !== 'held') return state;
    const row = await db.selectFrom('jobs').select('lease_token').where('id', '=', job.id).executeTakeFirst();
    // Enqueued again or cancelled by a change while it ran: the run goes on; the row is not its to remove.
    if (!row || row.lease_token === null) state = 'released';
    else {
      state = 'lost';
      controller.abort(new Error('the job was taken over by another process'));
    }
    return state;
  };
  const interval = setInterval(() => {
    renew().catch((error: unknown) => log?.warn({ err: error, kind: job.kind }, 'job lease not renewed'));
  }, renewMs);
  interval.unref();
  return {
    stop() {
      clearInterval(interval);
      return state;
    },
    holds: async () => {
      if (state !== 'held') return false;
      if (clock.now() < heldUntil - leaseMs / 2) return true;
      return (await renew()) === 'held';
    },
  };
}

/** Records a failed run: due again after its backoff, or parked as failed (counted in `failedCounts`). */
export async function recordFailedRun(
  deps: RunDeps & { failedCounts: Map<string, number> },
  job: Job,
  token: string,
  kind: Pick<Kind, 'attempts' | 'retry' | 'hooks'>,
  error: unknown,
): Promise<void> {
  const { db, clock, log, random, failedCounts } = deps;
  const attempts = Number(job.attempts);
  const now = clock.now();
  const lastError = String(error).slice(0, 500);
  /** An update of this run's job that changes nothing once another run holds it. */
  const updateIfHeld = (on: Db) => on.updateTable('jobs').where('id', '=', job.id).where('lease_token', '=', token);
  if (attempts >= kind.attempts || kind.hooks.permanent?.(error)) {
    const parked = await db.transaction().execute(async (trx) => {
      const updated = await updateIfHeld(trx)
        .set({ lease_until: null, lease_token: null, failed_at: now, last_error: lastError })
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await kind.hooks.parked?.(trx, job.subject, error);
      return true;
    });
    if (!parked) return;
    failedCounts.set(job.kind, (failedCounts.get(job.kind) ?? 0) + 1);
    log?.error({ err: error, kind: job.kind, subject: job.subject, attempts }, 'job failed for good: parked as failed');
    return;
  }
  const wait = backoffMs(attempts, kind.retry.firstMs, kind.retry.mostMs, random);
  log?.error({ err: error, kind: job.kind, attempt: attempts }, 'job run failed; it runs again');
  await updateIfHeld(db)
    .set({ lease_until: null, lease_token: null, due_at: now + wait, last_error: lastError })
    .execute();
}

/**
 * What removes a job whose run is done, unless it was enqueued again meanwhile (its token
 * cleared): the jobs done within `afterMs` of each other in one statement (the sends of a burst),
 * on SQLite in the commit of that turn's other writes, rather than a commit each.
 */
export function doneRemover(
  deps: Pick<RunDeps, 'db' | 'dialect'>,
  afterMs: number,
): (id: string, token: string) => Promise<void> {
  const { db, dialect } = deps;
  /** Jobs done in this turn, waiting to be removed together. */
  let done: { id: string; token: string; settle: (error?: unknown) => void }[] = [];
  return (id, token) =>
    new Promise((resolve, reject) => {
      done.push({ id, token, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (done.length > 1) return;
      setTimeout(() => {
        const batch = done;
        done = [];
        inWriteTransaction(db, dialect, (trx) =>
          trx
            .deleteFrom('jobs')
            .where((eb) =>
              eb.or(batch.map((job) => eb.and([eb('id', '=', job.id), eb('lease_token', '=', job.token)]))),
            )
            .execute(),
        ).then(
          () => {
            for (const job of batch) job.settle();
          },
          (error: unknown) => {
            for (const job of batch) job.settle(error ?? new Error('jobs not removed'));
          },
        );
      }, afterMs);
    });
}
