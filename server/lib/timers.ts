import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import { sql } from 'kysely';
import { claimRows } from '../db/claim.js';
import { compiledInsert } from '../db/compiled-once.js';
import type { Dialect } from '../db/index.js';
import type { Database, Db, Timer } from '../db/schema.js';
import type { Clock } from './clock.js';
import { orderedId } from './ids.js';
import {
  JOB_BATCH,
  JOB_LEASE_MS,
  JOB_LEASE_RENEW_MS,
  JOB_MAX_ATTEMPTS,
  JOB_MAX_RETRY_MS,
  JOB_RETRY_MS,
} from './reliability.js';

/** What a handler is told about the timer it runs. */
export interface DueTimer {
  subject: string;
  /** When it was due: a run late after a restart still knows the real time. */
  dueAt: number;
  /** 1 on the first run, more after failures or a takeover. */
  attempt: number;
  /** Aborted when another process has taken the job over (this run's lease lapsed): stop, leave the effect to it. */
  signal: AbortSignal;
}

/**
 * Runs one kind of timer. It may run again for the same due time (a failure, a process that
 * died mid-run): it makes its effect conditional on its own rows (a status moved in the same
 * transaction as the work), so the effect happens once. A throw retries it with backoff.
 */
export type TimerHandler = (timer: DueTimer) => Promise<void>;

/** The timer row `setTimer` writes. */
export const timerRow = ({
  kind,
  subject,
  dueAt,
  now,
}: {
  kind: string;
  subject: string;
  dueAt: number;
  now: number;
}) => ({
  id: orderedId(),
  kind,
  subject,
  due_at: dueAt,
  attempts: 0,
  lease_until: null,
  lease_token: null,
  failed_at: null,
  last_error: null,
  created_at: now,
});

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

export interface TimersOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The server's clock, set to the database's (`DatabaseClock`): due times and leases mean the same to every process. */
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** How long a claim holds a job without renewal before another process may take it over (ms). */
  leaseMs?: number;
  /** How often a running job's lease is renewed (ms); below `leaseMs`. */
  renewMs?: number;
  /** Jobs taken at once, per process. */
  batch?: number;
  /** Wait after a failed run, doubled after each further one, up to `maxRetryMs` (ms). */
  retryMs?: number;
  maxRetryMs?: number;
  /** Runs before a job is parked as failed (a kind may set its own). */
  maxAttempts?: number;
}

/** What a kind may set for its own jobs. */
export interface KindOptions {
  /** Runs before a job of this kind is parked as failed. */
  maxAttempts?: number;
}

export interface Timers {
  /** Registers the handler of `kind`; this process takes no job of a kind it has no handler for. */
  on(kind: string, handler: TimerHandler, options?: KindOptions): void;
  /**
   * A recurring job (a report, a cleanup): `run` once every `everyMs` across all processes, not
   * once per process, the first as soon as a server sweeps; a run that fails is retried as any job.
   */
  every(kind: string, everyMs: number, run: () => Promise<unknown>): void;
  /** Runs every job due now, until none is; resolves with how many ran (the sweep, and tests). */
  runDue(): Promise<number>;
  /** Runs what is due now in the background (after a commit that set a job due at once). */
  kick(): void;
  /** Jobs parked as failed since this process started, by kind (the operator's count). */
  readonly failedCounts: ReadonlyMap<string, number>;
}

/** Jobs one sweep of a process runs at most before it leaves the rest to the next (a second later). */
const MOST_PER_SWEEP = 1000;

/** The subject of a recurring job's one row. */
const RECURRING = 'recurring';

/** How a run's lease ended: still ours, re-set by a change while it ran, or taken by another process. */
type LeaseState = 'held' | 'released' | 'lost';

/**
 * The job engine every piece of later work runs on. A job is a `timers` row (kind, subject, due
 * time) written in the transaction of the change that needs it. At its time one process takes it
 * with `claimRows` (FOR UPDATE SKIP LOCKED on PostgreSQL) under a short lease with a token of its
 * own, renews the lease while the handler runs, and removes the row when it is done: a process
 * that dies holding a job leaves a lease that lapses within `leaseMs`, and the row is taken again;
 * a run whose lease was taken over is told through its signal and leaves the row alone. A failed
 * run is retried with backoff; after `maxAttempts` runs the job is parked as failed (kept, logged
 * at error, counted) and the rest of the queue goes on. Due times and leases are written and
 * judged on the server's clock, which follows the database's (`DatabaseClock`).
 */
export function createTimers(options: TimersOptions): Timers {
  const { db, dialect, clock, log } = options;
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS;
  const renewMs = options.renewMs ?? JOB_LEASE_RENEW_MS;
  const batch = options.batch ?? JOB_BATCH;
  const retryMs = options.retryMs ?? JOB_RETRY_MS;
  const maxRetryMs = options.maxRetryMs ?? JOB_MAX_RETRY_MS;
  const handlers = new Map<string, { handler: TimerHandler; maxAttempts: number }>();
  const failedCounts = new Map<string, number>();
  /** The recurring kinds whose row this process has yet to make sure of (at its first sweep). */
  const recurring = new Set<string>();
  let running: Promise<number> | null = null;
  let again = false;

  /** Renews the lease while `work` runs; aborts `controller` when another process has taken the job. */
  function keepLease(timer: Timer, token: string, controller: AbortController): { stop(): LeaseState } {
    let state: LeaseState = 'held';
    const renew = async () => {
      const now = clock.now();
      const renewed = await db
        .updateTable('timers')
        .set({ lease_until: now + leaseMs })
        .where('id', '=', timer.id)
        .where('lease_token', '=', token)
        .executeTakeFirst();
      if (Number(renewed.numUpdatedRows) > 0 || state !== 'held') return;
      const row = await db.selectFrom('timers').select('lease_token').where('id', '=', timer.id).executeTakeFirst();
      // Set again or cancelled by a change while it ran: the run goes on; the row is no longer its to remove.
      if (!row || row.lease_token === null) state = 'released';
      else {
        state = 'lost';
        controller.abort(new Error('the job was taken over by another process'));
      }
    };
    const interval = setInterval(() => {
      renew().catch((error: unknown) => log?.warn({ err: error, kind: timer.kind }, 'job lease not renewed'));
    }, renewMs);
    interval.unref();
    return {
      stop() {
        clearInterval(interval);
        return state;
      },
    };
  }

  async function runOne(timer: Timer) {
    const token = timer.lease_token as string;
    const { handler, maxAttempts } = handlers.get(timer.kind) as { handler: TimerHandler; maxAttempts: number };
    const controller = new AbortController();
    const lease = keepLease(timer, token, controller);
    const ours = db.updateTable('timers').where('id', '=', timer.id).where('lease_token', '=', token);
    try {
      await handler({
        subject: timer.subject,
        dueAt: Number(timer.due_at),
        attempt: Number(timer.attempts),
        signal: controller.signal,
      });
      if (lease.stop() !== 'held') return;
      // Set again while it ran (lease token cleared): the new due time stands.
      await db.deleteFrom('timers').where('id', '=', timer.id).where('lease_token', '=', token).execute();
    } catch (error) {
      if (lease.stop() !== 'held') return;
      const attempts = Number(timer.attempts);
      const now = clock.now();
      if (attempts >= maxAttempts) {
        failedCounts.set(timer.kind, (failedCounts.get(timer.kind) ?? 0) + 1);
        log?.error(
          { err: error, kind: timer.kind, subject: timer.subject, attempts },
          'job failed for good: parked as failed',
        );
        await ours
          .set({ lease_until: null, lease_token: null, failed_at: now, last_error: String(error).slice(0, 500) })
          .execute();
        return;
      }
      const wait = Math.min(retryMs * 2 ** (attempts - 1), maxRetryMs);
      log?.error({ err: error, kind: timer.kind, attempt: attempts }, 'job run failed; it runs again');
      await ours
        .set({ lease_until: null, lease_token: null, due_at: now + wait, last_error: String(error).slice(0, 500) })
        .execute();
    }
  }

  /** A recurring job's row, due now unless one is already waiting (another process made it). */
  async function ensureRecurring(): Promise<void> {
    for (const kind of recurring) {
      await setTimer(db, { kind, subject: RECURRING, dueAt: clock.now(), now: clock.now() }, 'keep');
      recurring.delete(kind);
    }
  }

  async function runBatches(): Promise<number> {
    if (recurring.size > 0) await ensureRecurring();
    let ran = 0;
    // Only kinds this process knows: a process of an older version leaves new kinds alone.
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return 0;
    for (;;) {
      const now = clock.now();
      const token = randomUUID();
      const claimed = await claimRows(db, dialect, 'timers', {
        due: [
          (eb) =>
            eb.and([
              eb('kind', 'in', kinds),
              eb('due_at', '<=', now),
              eb('failed_at', 'is', null),
              eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
            ]),
        ],
        orderBy: 'due_at',
        set: { lease_until: now + leaseMs, lease_token: token, attempts: sql<number>`attempts + 1` },
        limit: batch,
      });
      await Promise.all(claimed.map(runOne));
      ran += claimed.length;
      // Until a claim finds nothing: a job may set another due at once (a reminder with its mark).
      if (claimed.length === 0 || ran >= MOST_PER_SWEEP) return ran;
    }
  }

  function runDue(): Promise<number> {
    // A sweep under way takes one more pass for every call made meanwhile, however many.
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        let total = 0;
        do {
          again = false;
          total += await runBatches();
        } while (again);
        return total;
      } finally {
        // In the same turn as the last look at `again`: a call after it starts a sweep of its own.
        running = null;
      }
    })();
    return running;
  }

  function on(kind: string, handler: TimerHandler, kindOptions: KindOptions = {}) {
    if (handlers.has(kind)) throw new Error(`timers of kind ${kind} handled twice`);
    handlers.set(kind, { handler, maxAttempts: kindOptions.maxAttempts ?? options.maxAttempts ?? JOB_MAX_ATTEMPTS });
  }

  return {
    on,
    every(kind, everyMs, run) {
      // Never parked: a report or a cleanup that keeps failing is tried again at the longest backoff.
      on(
        kind,
        async () => {
          await run();
          // Set again while it runs: the engine keeps the row for the next turn instead of removing it.
          await setTimer(db, { kind, subject: RECURRING, dueAt: clock.now() + everyMs, now: clock.now() });
        },
        { maxAttempts: Number.POSITIVE_INFINITY },
      );
      recurring.add(kind);
    },
    runDue,
    kick() {
      runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run'));
    },
    failedCounts,
  };
}
