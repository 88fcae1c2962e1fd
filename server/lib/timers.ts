import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Timer } from '../db/schema.js';
import { nextTurn } from './background.js';
import { orderedId } from './ids.js';
import { jobClaims } from './job-claims.js';
import { doneRemover, keepLease, recordFailedRun } from './job-runs.js';
import {
  JOB_BATCH,
  JOB_LEASE_MS,
  JOB_LEASE_RENEW_MS,
  JOB_MAX_ATTEMPTS,
  JOB_MAX_RETRY_MS,
  JOB_RETRY_MS,
} from './reliability.js';
import { setTimer, type TimerInput, timerRow } from './timer-rows.js';
import type { Kind, KindOptions, Reservation, TimerHandler, Timers, TimersOptions } from './timer-types.js';

export { cancelTimer, setTimer, setTimers, type TimerInput, timerDueAt, timerRow, timersInsert } from './timer-rows.js';
export type { DueTimer, KindOptions, Reservation, TimerHandler, Timers, TimersOptions } from './timer-types.js';

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
 * one. A failed run is retried with backoff (the kind's own, or doubling with jitter); after `maxAttempts`
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
  const random = options.random ?? Math.random;
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

  const runDeps = { db, dialect, clock, log, leaseMs, renewMs, retryMs, maxRetryMs, random, failedCounts };
  const removeDone = doneRemover(runDeps, REMOVE_AFTER_MS);
  async function runOne(timer: Timer, kind: Kind, given: unknown): Promise<void> {
    const token = timer.lease_token as string;
    const controller = new AbortController();
    const lease = keepLease(runDeps, timer, token, controller);
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
        holds: lease.holds,
        leaseToken: token,
        free,
        ...(given === undefined ? {} : { given }),
      });
      if (lease.stop() !== 'held') return;
      // Set again while it ran (lease token cleared): the new due time stands.
      await removeDone(timer.id, token);
    } catch (error) {
      if (lease.stop() !== 'held') return;
      await recordFailedRun(runDeps, timer, token, kind, error);
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

  const claimFor = jobClaims();
  const claimOf = (shape: (string | null)[]) => claimFor(shape, sharing());

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
