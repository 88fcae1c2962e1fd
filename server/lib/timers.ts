import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Compilable, ExpressionBuilder, InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import { sql } from 'kysely';
import { type ClaimArm, claimQuery } from '../db/claim.js';
import { compiledInsert, compiledOnce } from '../db/compiled-once.js';
import { inWriteTransaction } from '../db/grouped-transactions.js';
import type { Dialect } from '../db/index.js';
import type { Database, Db, Timer } from '../db/schema.js';
import { nextTurn } from './background.js';
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
  /**
   * Frees this run's place among its kind's `concurrency` before the handler ends: its effect is
   * handed over (the provider answered) and what is left is bookkeeping, which holds back no
   * other job of the kind. The lease is held until the handler ends all the same.
   */
  free?(): void;
  /**
   * What the transaction that wrote this job leased to this process handed its run (`reserve`),
   * so the run reads nothing back; undefined when the job was claimed.
   */
  given?: unknown;
}

/**
 * Runs one kind of timer. It may run again for the same due time (a failure, a process that
 * died mid-run): it makes its effect conditional on its own rows (a status moved in the same
 * transaction as the work), so the effect happens once. A throw retries it with backoff.
 */
export type TimerHandler = (timer: DueTimer) => Promise<void>;

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
  /** Jobs of the kinds without a `concurrency` of their own run at once, per process. */
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
  /**
   * Runs of this kind in flight at once in this process (a provider's bound), apart from the
   * other kinds, which share `batch`; a claim takes no more of the kind than it has free places.
   */
  concurrency?: number;
  /** The wait before the next run once `attempts` runs have failed (ms); the engine's doubling otherwise. */
  retryMs?: (attempts: number) => number;
  /** A failure no retry can mend (a number the provider refuses for good): the job is parked at once. */
  permanent?: (error: unknown) => boolean;
  /** What the kind's own rows show of a job given up on, written in the transaction that parks it. */
  parked?: (db: Db, subject: string, error: unknown) => Promise<void>;
}

/**
 * Places of one kind a transaction takes before it writes jobs of that kind: that many of them
 * are written already leased to this process (`rows`), and run by it right after the commit
 * (`start`), with no claim to find them again.
 */
export interface Reservation {
  /** Places taken: at most this many of the jobs are written leased. */
  readonly slots: number;
  /** The jobs for `subjects`, due now: the first `slots` leased to this process from now, the rest for any to claim. */
  rows(subjects: string[], now: number): TimerInput[];
  /**
   * After the commit: runs the jobs written leased, each handed `given(subject)`, and claims the
   * rest; resolves once those runs have ended. A commit so slow that a lease may lapse before its
   * first renewal leaves those jobs to the claim that takes them over once it has.
   */
  start(given?: (subject: string) => unknown): Promise<void>;
  /** Nothing was written (rolled back): gives back the places. */
  release(): void;
}

export interface Timers {
  /** Registers the handler of `kind`; this process takes no job of a kind it has no handler for. */
  on(kind: string, handler: TimerHandler, options?: KindOptions): void;
  /**
   * A recurring job (a report, a cleanup): `run` once every `everyMs` across all processes, not
   * once per process, the first as soon as a server sweeps; a run that fails is retried as any job.
   */
  every(kind: string, everyMs: number, run: () => Promise<unknown>): void;
  /**
   * Runs every job due now, until none is and none is running (jobs run right after their
   * commit too); resolves with how many it claimed (the sweep, and tests).
   */
  runDue(): Promise<number>;
  /** Runs what is due now in the background (after a commit that set a job due at once). */
  kick(): void;
  /** Takes up to `count` free places of `kind` for jobs a transaction is about to write (none once stopped). */
  reserve(kind: string, count: number): Reservation;
  /** Takes jobs again after `stop`, and runs what is due. */
  start(): void;
  /** Takes no more jobs and lends no places; waits (at most `waitMs`) for the runs in flight and the places lent. */
  stop(waitMs?: number): Promise<void>;
  /** Jobs parked as failed since this process started, by kind (the operator's count). */
  readonly failedCounts: ReadonlyMap<string, number>;
}

/** Jobs one sweep of a process claims at most before it leaves the rest to the next (a second later). */
const MOST_PER_SWEEP = 1000;

/** How often a sweep waiting for long runs claims again what fell due meanwhile (ms): the periodic sweep's second. */
const LOOK_AGAIN_MS = 1000;

/** How long the jobs done are gathered before they are removed together (ms). */
const REMOVE_AFTER_MS = 20;

/** The wait before a claim the database refused is tried again (ms). */
const CLAIM_AGAIN_MS = 100;

/** The subject of a recurring job's one row. */
const RECURRING = 'recurring';

/** How a run's lease ended: still ours, re-set by a change while it ran, or taken by another process. */
type LeaseState = 'held' | 'released' | 'lost';

/** A kind's handler and what it set, with its places in flight and lent in this process. */
interface Kind {
  name: string;
  handler: TimerHandler;
  maxAttempts: number;
  options: KindOptions;
  /** Its own places, or null for a kind that shares `batch` with the others. */
  concurrency: number | null;
  running: number;
  lent: number;
  /**
   * Whether more of its jobs may be due than it has taken: its last claim filled every place it
   * had, or a transaction wrote some without a place. Only then does a place freed claim again
   * (an alert's SMS sent right after its commit free theirs with nothing else waiting).
   */
  maybeMore: boolean;
}

/**
 * The job engine every piece of later work runs on. A job is a `timers` row (kind, subject, due
 * time) written in the transaction of the change that needs it. At its time one process takes it
 * with `claimQuery` (FOR UPDATE SKIP LOCKED on PostgreSQL) under a short lease with a token of its
 * own, renews the lease while the handler runs, and removes the row when it is done: a process
 * that dies holding a job leaves a lease that lapses within `leaseMs`, and the row is taken again;
 * a run whose lease was taken over is told through its signal and leaves the row alone. A job
 * may also be written already leased to the process whose transaction wrote it (`reserve`), and
 * run by it right after the commit. A kind may bound its runs in flight per process
 * (`concurrency`): each place freed is filled by the next claim, the places freed together by
 * one. A failed run is retried with backoff (the kind's own, or doubling); after `maxAttempts`
 * runs, or a failure the kind calls permanent, the job is parked as failed (kept, logged at
 * error, counted, the kind's `parked` written with it) and the rest of the queue goes on. Due
 * times and leases are written and judged on the server's clock, which follows the database's
 * (`DatabaseClock`).
 */
export function createTimers(options: TimersOptions): Timers {
  const { db, dialect, clock, log } = options;
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS;
  const renewMs = options.renewMs ?? JOB_LEASE_RENEW_MS;
  const batch = options.batch ?? JOB_BATCH;
  const retryMs = options.retryMs ?? JOB_RETRY_MS;
  const maxRetryMs = options.maxRetryMs ?? JOB_MAX_RETRY_MS;
  const kinds = new Map<string, Kind>();
  const failedCounts = new Map<string, number>();
  /** The recurring kinds whose row this process has yet to make sure of (at its first sweep). */
  const recurring = new Set<string>();
  /** Runs in flight, claimed or started after their commit; and the shared places of the unbounded kinds. */
  const runs = new Set<Promise<void>>();
  const shared = { running: 0, lent: 0 };
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;
  /**
   * Wakes a sweep waiting for a place to free up, a run to end, or another call. `poke` asks it
   * to claim again (places came free, or a run ended that may have set another job due); `nudge`
   * only lets it see whether anything still runs: a run that freed its place early ends without
   * a claim, what it did after `free` being bookkeeping that sets no job due.
   */
  let wake: (() => void) | null = null;
  let dirty = false;
  const nudge = () => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const poke = () => {
    dirty = true;
    nudge();
  };

  const freeOf = (kind: Kind) =>
    kind.concurrency === null ? batch - shared.running - shared.lent : kind.concurrency - kind.running - kind.lent;
  const lentAll = () => [...kinds.values()].reduce((sum, kind) => sum + kind.lent, shared.lent);

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

  /** Records a failed run: due again after its backoff, or parked as failed. */
  async function failed(timer: Timer, token: string, kind: Kind, error: unknown): Promise<void> {
    const attempts = Number(timer.attempts);
    const now = clock.now();
    const lastError = String(error).slice(0, 500);
    const ours = (on: Db) => on.updateTable('timers').where('id', '=', timer.id).where('lease_token', '=', token);
    if (attempts >= kind.maxAttempts || kind.options.permanent?.(error)) {
      const parked = await db.transaction().execute(async (trx) => {
        const updated = await ours(trx)
          .set({ lease_until: null, lease_token: null, failed_at: now, last_error: lastError })
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) return false;
        await kind.options.parked?.(trx, timer.subject, error);
        return true;
      });
      if (!parked) return;
      failedCounts.set(timer.kind, (failedCounts.get(timer.kind) ?? 0) + 1);
      log?.error(
        { err: error, kind: timer.kind, subject: timer.subject, attempts },
        'job failed for good: parked as failed',
      );
      return;
    }
    const wait = kind.options.retryMs?.(attempts) ?? Math.min(retryMs * 2 ** (attempts - 1), maxRetryMs);
    log?.error({ err: error, kind: timer.kind, attempt: attempts }, 'job run failed; it runs again');
    await ours(db)
      .set({ lease_until: null, lease_token: null, due_at: now + wait, last_error: lastError })
      .execute();
  }

  /** Jobs done in this turn, waiting to be removed together. */
  let done: { id: string; token: string; settle: (error?: unknown) => void }[] = [];

  /**
   * Removes a job whose run is done, unless it was set again meanwhile (its token cleared): the
   * jobs done within `REMOVE_AFTER_MS` of each other in one statement (the sends of a burst), on
   * SQLite in the commit of that turn's other writes. A commit per finished job was most of what
   * the jobs cost SQLite under load.
   */
  function removeDone(id: string, token: string): Promise<void> {
    return new Promise((resolve, reject) => {
      done.push({ id, token, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (done.length > 1) return;
      setTimeout(() => {
        const batch = done;
        done = [];
        inWriteTransaction(db, dialect, (trx) =>
          trx
            .deleteFrom('timers')
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
      }, REMOVE_AFTER_MS);
    });
  }

  async function runOne(timer: Timer, kind: Kind, given: unknown): Promise<void> {
    const token = timer.lease_token as string;
    const controller = new AbortController();
    const lease = keepLease(timer, token, controller);
    let placed = true;
    const free = () => {
      if (!placed) return;
      placed = false;
      if (kind.concurrency === null) shared.running -= 1;
      else kind.running -= 1;
      if (kind.concurrency === null || kind.maybeMore) poke();
      else nudge();
    };
    try {
      await kind.handler({
        subject: timer.subject,
        dueAt: Number(timer.due_at),
        attempt: Number(timer.attempts),
        signal: controller.signal,
        free,
        ...(given === undefined ? {} : { given }),
      });
      if (lease.stop() !== 'held') return;
      // Set again while it ran (lease token cleared): the new due time stands.
      await removeDone(timer.id, token);
    } catch (error) {
      if (lease.stop() !== 'held') return;
      await failed(timer, token, kind, error);
    } finally {
      free();
    }
  }

  /** Runs a job this process holds, in a place of its kind taken by the caller. */
  function launch(timer: Timer, kind: Kind, given?: unknown): Promise<void> {
    const run: Promise<void> = runOne(timer, kind, given)
      .catch((error: unknown) => log?.error({ err: error, kind: timer.kind }, 'job outcome not recorded'))
      .finally(() => {
        runs.delete(run);
        nudge();
      });
    runs.add(run);
    return run;
  }

  /** A recurring job's row, due now unless one is already waiting (another process made it). */
  async function ensureRecurring(): Promise<void> {
    for (const kind of recurring) {
      await setTimer(db, { kind, subject: RECURRING, dueAt: clock.now(), now: clock.now() }, 'keep');
      recurring.delete(kind);
    }
  }

  /** The kinds this process knows that share `batch` (only these: a process of an older version leaves new kinds alone). */
  const sharing = () => [...kinds].filter(([, kind]) => kind.concurrency === null).map(([name]) => name);

  /**
   * The claim for arms of one shape (null: the kinds that share `batch`; else one kind), built
   * once (`compiledOnce`): each claim brings only its time, lease, token and limits. A claim
   * built at every call cost the server more than the database spent running it.
   */
  const claims = new Map<
    string,
    (db: Kysely<Database>, dialect: Dialect, values: Record<string, unknown>) => Promise<Timer[]>
  >();
  function claimOf(shape: (string | null)[]) {
    const key = JSON.stringify([shape, sharing()]);
    let claim = claims.get(key);
    if (!claim) {
      const shared = sharing();
      claim = compiledOnce<Record<string, unknown>, Timer>((qdb, value, qdialect) => {
        const now = value('now');
        const due = (eb: ExpressionBuilder<Database, 'timers'>) =>
          eb.and([
            eb('due_at', '<=', now as number),
            eb('failed_at', 'is', null),
            eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now as number)]),
          ]);
        const arms: ClaimArm<'timers'>[] = shape.map((name, i) => ({
          where: (eb) => eb.and([name === null ? eb('kind', 'in', shared) : eb('kind', '=', name), due(eb)]),
          limit: value(`limit_${i}`) as number,
        }));
        return claimQuery(qdb, qdialect, 'timers', {
          due: arms,
          orderBy: 'due_at',
          set: {
            lease_until: value('leaseUntil') as number,
            lease_token: value('token') as string,
            attempts: sql<number>`attempts + 1`,
          },
          limit: value('total') as number,
        }) as Compilable<Timer>;
      });
      claims.set(key, claim);
    }
    return claim;
  }

  /**
   * Claims as many due jobs as there are free places, each kind within its own, and starts
   * them: one statement (an arm per bounded kind, one for the rest). Resolves with how many.
   */
  async function claimAndStart(): Promise<{ started: number; full: boolean }> {
    const taking: { name: string | null; kind: Kind | null; places: number }[] = [];
    const sharedFree = batch - shared.running - shared.lent;
    if (sharing().length > 0 && sharedFree > 0) taking.push({ name: null, kind: null, places: sharedFree });
    for (const [name, kind] of kinds) {
      const free = kind.concurrency === null ? 0 : freeOf(kind);
      if (free > 0) taking.push({ name, kind, places: free });
    }
    if (taking.length === 0) return { started: 0, full: false };
    const now = clock.now();
    const token = randomUUID();
    const values: Record<string, unknown> = { now, leaseUntil: now + leaseMs, token };
    for (const [i, { places }] of taking.entries()) values[`limit_${i}`] = places;
    values.total = taking.reduce((sum, { places }) => sum + places, 0);
    const claimed = await claimOf(taking.map(({ name }) => name))(db, dialect, values);
    // An arm that filled its places may have left more due: claimed again at once (for a kind of
    // its own, as its places free up); one that did not found all that was due.
    let full = false;
    for (const { kind, places } of taking) {
      const taken = claimed.filter((timer) => (kind ? timer.kind === kind.name : !kinds.get(timer.kind)?.concurrency));
      if (taken.length >= places) full = true;
      if (kind) kind.maybeMore = taken.length >= places;
    }
    // A transaction may have taken places meanwhile (its SMS written leased, sent as it commits):
    // the claim holds none while it waits, and gives back what no place is left for.
    const extra: string[] = [];
    for (const timer of claimed) {
      const kind = kinds.get(timer.kind) as Kind;
      if (freeOf(kind) <= 0) {
        extra.push(timer.id);
        continue;
      }
      if (kind.concurrency === null) shared.running += 1;
      else kind.running += 1;
      launch(timer, kind);
    }
    if (extra.length > 0) {
      await db
        .updateTable('timers')
        .set({ lease_until: null, lease_token: null, attempts: sql<number>`attempts - 1` })
        .where('id', 'in', extra)
        .where('lease_token', '=', token)
        .execute();
      dirty = true;
    }
    return { started: claimed.length - extra.length, full };
  }

  /** Claims and runs until a claim finds nothing and nothing runs; waits for a place to free up meanwhile. */
  async function sweep(): Promise<number> {
    if (recurring.size > 0) await ensureRecurring();
    let ran = 0;
    /** Claimed since the last call: each call made meanwhile gets a pass of its own, however long this sweep. */
    let pass = 0;
    let woken = false;
    let refused = 0;
    for (;;) {
      if (again) pass = 0;
      again = false;
      dirty = false;
      // The places a batch of runs frees are freed one after another in this turn: claimed
      // together in the next, one claim where there were one per place.
      if (woken) await nextTurn();
      let claimed = 0;
      let full = false;
      try {
        if (!stopped && pass < MOST_PER_SWEEP) ({ started: claimed, full } = await claimAndStart());
        refused = 0;
      } catch (error) {
        // A claim the database refused (SQLite busy past its timeout): tried again once, shortly.
        refused += 1;
        if (refused > 1) throw error;
        log?.warn({ err: error }, 'jobs not claimed; trying again');
        await new Promise((resolve) => setTimeout(resolve, CLAIM_AGAIN_MS));
        woken = false;
        again = true;
        continue;
      }
      ran += claimed;
      pass += claimed;
      if ((claimed > 0 && full) || again) {
        woken = false;
        continue;
      }
      // A job may set another due at once (a reminder with its mark): claimed as its run ends; and
      // a freed place takes the next.
      while (!dirty && !again) {
        if (runs.size === 0 && lentAll() === 0) return ran;
        let later: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          // A transaction holding lent places is about to commit and start its jobs: looked at again
          // soon. A run may last (a provider that does not answer): what falls due meanwhile is
          // claimed within a second, as the periodic sweep would, which waits for this one.
          later = runs.size === 0 ? setTimeout(nudge, 5) : setTimeout(poke, LOOK_AGAIN_MS);
          later.unref();
        });
        clearTimeout(later);
      }
      woken = true;
    }
  }

  function runDue(): Promise<number> {
    // A sweep under way takes one more pass for every call made meanwhile, however many.
    if (running) {
      again = true;
      poke();
      return running;
    }
    running = (async () => {
      try {
        return await sweep();
      } finally {
        // In the same turn as the last look at `again`: a call after it starts a sweep of its own.
        running = null;
      }
    })();
    return running;
  }

  function on(kind: string, handler: TimerHandler, kindOptions: KindOptions = {}) {
    if (kinds.has(kind)) throw new Error(`timers of kind ${kind} handled twice`);
    kinds.set(kind, {
      handler,
      maxAttempts: kindOptions.maxAttempts ?? options.maxAttempts ?? JOB_MAX_ATTEMPTS,
      options: kindOptions,
      concurrency: kindOptions.concurrency ?? null,
      running: 0,
      lent: 0,
      maybeMore: true,
      name: kind,
    });
  }

  function kick() {
    runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run'));
  }

  function reserve(name: string, count: number): Reservation {
    const kind = kinds.get(name);
    if (!kind) throw new Error(`no handler for timers of kind ${name}`);
    const slots = stopped ? 0 : Math.max(0, Math.min(count, freeOf(kind)));
    const lending = kind.concurrency === null ? shared : kind;
    lending.lent += slots;
    const token = randomUUID();
    let open = true;
    let leased: Timer[] = [];
    let written = 0;
    const giveBack = () => {
      if (!open) return false;
      open = false;
      lending.lent -= slots;
      return true;
    };
    return {
      slots,
      rows(subjects, now) {
        // The lease counted from now, as the rows are written: the wait for the commit takes none of it.
        const until = clock.now() + leaseMs;
        const rows: TimerInput[] = subjects.map((subject, i) => ({
          kind: name,
          subject,
          dueAt: now,
          now,
          ...(i < slots ? { id: orderedId(), lease: { until, token } } : {}),
        }));
        leased = rows.filter((row) => row.lease).map((row) => timerRow(row) as Timer);
        written = rows.length;
        return rows;
      },
      async start(given) {
        if (!giveBack()) return;
        // Run even when the engine was stopped meanwhile (a shutdown while the change committed):
        // `stop` waits for lent places as for runs in flight.
        const started: Promise<unknown>[] = [];
        for (const timer of leased.filter((row) => Number(row.lease_until) - clock.now() > renewMs)) {
          if (kind.concurrency === null) shared.running += 1;
          else kind.running += 1;
          started.push(launch(timer, kind, given?.(timer.subject)));
        }
        if (written > leased.length) kind.maybeMore = true;
        // What was written without a place is claimed now, and waited for with the rest.
        if (written > leased.length && !stopped) {
          started.push(runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run')));
        } else {
          // A sweep waiting for the places lent sees them running now.
          nudge();
        }
        await Promise.all(started);
      },
      release() {
        if (giveBack()) poke();
      },
    };
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
    kick,
    reserve,
    start() {
      stopped = false;
      kick();
    },
    async stop(waitMs = 10_000) {
      stopped = true;
      poke();
      const settled = (async () => {
        while (runs.size > 0 || lentAll() > 0) {
          const lent = lentAll() > 0 ? new Promise((resolve) => setTimeout(resolve, 5)) : undefined;
          await Promise.all([...runs, lent]);
        }
        // Its failures are its callers' to handle: a stop that gave up waiting leaves none unhandled.
        await running?.catch(() => undefined);
      })();
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise<void>((resolve) => (giveUp = setTimeout(resolve, waitMs)))]);
      clearTimeout(giveUp);
    },
    failedCounts,
  };
}
