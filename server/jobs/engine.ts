import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Job } from '../db/schema.js';
import { nextTurn } from '../lib/background.js';
import { orderedId } from '../lib/ids.js';
import {
  JOB_BATCH,
  JOB_LEASE_MS,
  JOB_LEASE_RENEW_MS,
  JOB_MAX_ATTEMPTS,
  JOB_MAX_RETRY_MS,
  JOB_RETRY_MS,
} from '../lib/reliability.js';
import { jobClaims } from './claim.js';
import { enqueue, type JobInput, jobRow, jobsOfOtherKinds } from './enqueue.js';
import { doneRemover, keepLease, recordFailedRun } from './runs.js';
import type { JobHandler, Jobs, JobsOptions, Kind, KindHooks, Reservation } from './types.js';

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
 * The job engine every piece of later work runs on. A job is a `jobs` row (kind, subject, due
 * time) written in the transaction of the change that needs it. At its time one process takes it
 * with `claimQuery` (FOR UPDATE SKIP LOCKED on PostgreSQL) under a short lease with a token of its
 * own, renews the lease while the handler runs, and removes the row when it is done: a process
 * that dies holding a job leaves a lease that lapses within `leaseMs`, and the row is taken again;
 * a run whose lease was taken over is told through its signal and leaves the row alone. A job
 * may also be written already leased to the process whose transaction wrote it (`reserve`), and
 * run by it right after the commit. A kind may bound its runs in flight per process
 * (`concurrency`), the places freed together filled by one claim. A failed run is retried with backoff (the kind's own, or doubling with jitter); after its
 * attempts, or a failure the kind calls permanent, the job is parked as failed (kept, logged at
 * error, counted, the kind's `parked` written with it) and the rest of the queue goes on. Due
 * times and leases are written and judged on the server's clock, which follows the database's
 * (`DatabaseClock`).
 */
export function createJobs<K extends string>(options: JobsOptions<K>): Jobs<K> {
  const { db, dialect, clock, log } = options;
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS;
  const renewMs = options.renewMs ?? JOB_LEASE_RENEW_MS;
  const batch = options.batch ?? JOB_BATCH;
  const retryMs = options.retryMs ?? JOB_RETRY_MS;
  const maxRetryMs = options.maxRetryMs ?? JOB_MAX_RETRY_MS;
  const random = options.random ?? Math.random;
  const settings: Record<string, JobsOptions<K>['kinds'][K]> = options.kinds;
  const kinds = new Map<string, Kind>();
  const failedCounts = new Map<string, number>();
  /** The recurring kinds whose row this process has yet to make sure of (at its first sweep). */
  const recurring = new Set<string>();
  /** Runs in flight; and below, the places shared by the kinds without a concurrency of their own. */
  const runs = new Set<Promise<void>>();
  const shared = { running: 0, lent: 0 };
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;
  /**
   * Wakes a sweep waiting for a place, a run's end or another call: `poke` to claim again, `nudge`
   * only to see whether anything still runs (a run that freed its place early ends without a claim).
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

  const runDeps = { db, dialect, clock, log, leaseMs, renewMs, random, failedCounts };
  const removeDone = doneRemover(runDeps, REMOVE_AFTER_MS);
  async function runOne(job: Job, kind: Kind, given: unknown): Promise<void> {
    const token = job.lease_token as string;
    const controller = new AbortController();
    const lease = keepLease(runDeps, job, token, controller);
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
        subject: job.subject,
        dueAt: Number(job.due_at),
        attempt: Number(job.attempts),
        signal: controller.signal,
        holds: lease.holds,
        leaseToken: token,
        free,
        ...(given === undefined ? {} : { given }),
      });
      if (lease.stop() !== 'held') return;
      // Set again while it ran (lease token cleared): the new due time stands.
      await removeDone(job.id, token);
    } catch (error) {
      if (lease.stop() !== 'held') return;
      await recordFailedRun(runDeps, job, token, kind, error);
    } finally {
      free();
    }
  }

  /** Runs a job this process holds, in a place of its kind taken by the caller. */
  function launch(job: Job, kind: Kind, given?: unknown): Promise<void> {
    const run: Promise<void> = runOne(job, kind, given)
      .catch((error: unknown) => log?.error({ err: error, kind: job.kind }, 'job outcome not recorded'))
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
      await enqueue<string>(db, { kind, subject: RECURRING, dueAt: clock.now(), now: clock.now() }, 'keep');
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
      const taken = claimed.filter((job) => (kind ? job.kind === kind.name : !kinds.get(job.kind)?.concurrency));
      if (taken.length >= places) full = true;
      if (kind) kind.maybeMore = taken.length >= places;
    }
    // A transaction may have taken places meanwhile (its SMS written leased, sent as it commits):
    // the claim holds none while it waits, and gives back what no place is left for.
    const extra: string[] = [];
    for (const job of claimed) {
      const kind = kinds.get(job.kind) as Kind;
      if (freeOf(kind) <= 0) {
        extra.push(job.id);
        continue;
      }
      if (kind.concurrency === null) shared.running += 1;
      else kind.running += 1;
      launch(job, kind);
    }
    if (extra.length > 0) {
      await db
        .updateTable('jobs')
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

  function handle(kind: K, handler: JobHandler, hooks: KindHooks = {}) {
    const set = settings[kind];
    if (!set) throw new Error(`job kind ${kind} is not in the registry of kinds (server/jobs/kinds.ts)`);
    if (kinds.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    const wrong = (['permanent', 'parked'] as const).find((hook) => Boolean(set[hook]) !== Boolean(hooks[hook]));
    if (wrong)
      throw new Error(`job kind ${kind}: its ${wrong} hook ${set[wrong] ? 'is missing' : 'is not in its settings'}`);
    kinds.set(kind, {
      handler,
      hooks,
      attempts: set.every ? Number.POSITIVE_INFINITY : (set.attempts ?? options.maxAttempts ?? JOB_MAX_ATTEMPTS),
      retry: set.retry ?? { firstMs: retryMs, mostMs: maxRetryMs },
      concurrency: set.concurrency ?? null,
      running: 0,
      lent: 0,
      maybeMore: true,
      name: kind,
    });
  }

  const kick = () => void runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run'));

  function reserve<R extends K>(name: R, count: number): Reservation<R> {
    const kind = kinds.get(name);
    if (!kind) throw new Error(`no handler for jobs of kind ${name}`);
    const slots = stopped ? 0 : Math.max(0, Math.min(count, freeOf(kind)));
    const lending = kind.concurrency === null ? shared : kind;
    lending.lent += slots;
    const token = randomUUID();
    let open = true;
    let leased: Job[] = [];
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
        const rows: JobInput<R>[] = subjects.map((subject, i) => ({
          kind: name,
          subject,
          dueAt: now,
          now,
          ...(i < slots ? { id: orderedId(), lease: { until, token } } : {}),
        }));
        leased = rows.filter((row) => row.lease).map((row) => jobRow(row) as Job);
        written = rows.length;
        return rows;
      },
      async start(given) {
        if (!giveBack()) return;
        // Run even when the engine was stopped meanwhile (a shutdown while the change committed):
        // `stop` waits for lent places as for runs in flight.
        const started: Promise<unknown>[] = [];
        for (const job of leased.filter((row) => Number(row.lease_until) - clock.now() > renewMs)) {
          if (kind.concurrency === null) shared.running += 1;
          else kind.running += 1;
          started.push(launch(job, kind, given?.(job.subject)));
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
    handle,
    every(kind, run) {
      const everyMs = settings[kind]?.every;
      if (everyMs === undefined) throw new Error(`job kind ${kind} is not recurring in the registry of kinds`);
      // Never parked: a report or a cleanup that keeps failing is tried again at the longest backoff.
      handle(kind, async () => {
        await run();
        // Enqueued again while it runs: the engine keeps the row for the next turn instead of removing it.
        await enqueue<string>(db, { kind, subject: RECURRING, dueAt: clock.now() + everyMs, now: clock.now() });
      });
      recurring.add(kind);
    },
    async ready() {
      const missing = Object.keys(settings).filter((kind) => !kinds.has(kind) && !settings[kind]?.onlyWhen);
      if (missing.length > 0) throw new Error(`no handler registered for the job kinds ${missing.join(', ')}`);
      for (const { kind, count } of await jobsOfOtherKinds(db, [...kinds.keys()])) {
        log?.error({ kind, jobs: count }, 'jobs of a kind no handler here knows: they wait and never run');
      }
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
