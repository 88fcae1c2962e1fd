import { randomUUID } from 'node:crypto';
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
import { claimDue, unclaim } from './claim.js';
import { enqueue, type JobInput, jobRow, jobsOfOtherKinds } from './enqueue.js';
import { doneRemover, keepLease, recordFailedRun } from './runs.js';
import type { ClaimedAtWrite, JobHandler, Jobs, JobsOptions, Kind, KindHooks, Places } from './types.js';

/** How long a sweep waiting for long runs goes before it claims what fell due meanwhile (ms). */
const CLAIM_WHILE_RUNNING_MS = 1000;
/** How long finished jobs are gathered before one statement removes them (ms). */
const REMOVE_AFTER_MS = 20;
/** The wait before a claim the database refused (SQLite busy past its timeout) is tried once more (ms). */
const CLAIM_RETRY_MS = 100;
/** The subject of a recurring kind's one row. */
const RECURRING = 'recurring';

/**
 * The job engine of one process: graphile-worker's worker loop, with places per kind. A job goes
 *
 * 1. `enqueue` (enqueue.ts): its row, due at its time, written in the transaction of the change
 *    that needs it, which kicks the engine after its commit (`kick`); every process also sweeps
 *    once a second (server/app.ts), for what falls due later or was written by another;
 * 2. `sweep`: one statement (claim.ts) takes as many due jobs as there are free places, each
 *    kind within its own, under a lease with a token of this claim's;
 * 3. `run`: the kind's handler, the lease renewed meanwhile (runs.ts `keepLease`);
 * 4. done: its row removed; failed: due again after its backoff, or parked as failed once out of
 *    attempts or refused for good (runs.ts `recordFailedRun`);
 *
 * and the sweep claims again as places free up, until a claim finds nothing and nothing runs. A
 * process that dies leaves its leases to lapse and another takes its jobs; a run whose job
 * another process took over is told by its signal and leaves the job alone. Due times and leases
 * are on the server's clock, which follows the database's (`DatabaseClock`).
 *
 * One shortcut, for the path from a press to its SMS: a transaction may claim the jobs it writes
 * (`claimAtWrite`), as many as there are free places, and the process runs them right after the
 * commit with what the transaction wrote, with no claim statement and nothing read back.
 */
export function createJobs<K extends string>(options: JobsOptions<K>): Jobs<K> {
  const { db, dialect, clock, log } = options;
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS;
  const renewMs = options.renewMs ?? JOB_LEASE_RENEW_MS;
  const random = options.random ?? Math.random;
  const settings: Record<string, JobsOptions<K>['kinds'][K]> = options.kinds;
  const defaultRetry = { firstMs: options.retryMs ?? JOB_RETRY_MS, mostMs: options.maxRetryMs ?? JOB_MAX_RETRY_MS };
  /** The places of the kinds without a concurrency of their own, shared. */
  const shared: Places = { size: options.batch ?? JOB_BATCH, taken: 0, moreDue: true };
  const kinds = new Map<string, Kind>();
  /** The recurring kinds whose row this process has yet to make sure of (at its first sweep). */
  const recurring = new Set<string>();
  const runs = new Set<Promise<void>>();
  /** Transactions that claimed jobs at write, until they run them or roll back. */
  const writes = new Set<Promise<void>>();
  const failedCounts = new Map<string, number>();
  const runDeps = { db, dialect, clock, log, leaseMs, renewMs, random, failedCounts };
  const removeDone = doneRemover(runDeps, REMOVE_AFTER_MS);

  let stopped = false;
  let sweeping: Promise<number> | null = null;
  /** Set when the sweep is to claim again: a call, or places freed while more may be due. */
  let claimAgain = false;
  /** Wakes the sweep waiting for its runs. */
  let wake = () => {};
  const freePlaces = (places: Places) => places.size - places.taken;

  /**
   * Runs a job this process holds, in the place of its kind taken for it: its handler, then its
   * row removed, or its failure recorded. `fromWriter`: what the transaction that wrote it handed it.
   */
  function run(job: Job, kind: Kind, fromWriter?: unknown): Promise<void> {
    const { places } = kind;
    const token = job.lease_token as string;
    const controller = new AbortController();
    const lease = keepLease(runDeps, job, token, controller);
    let holdsPlace = true;
    const releasePlace = () => {
      if (!holdsPlace) return;
      holdsPlace = false;
      places.taken -= 1;
      // Its kind's last claim took all it asked for: more may be due.
      if (places.moreDue) kick();
      else wake();
    };
    const handled = async () => {
      try {
        await kind.handler({
          subject: job.subject,
          dueAt: Number(job.due_at),
          attempt: Number(job.attempts),
          signal: controller.signal,
          holds: lease.holds,
          leaseToken: token,
          releasePlace,
          ...(fromWriter === undefined ? {} : { fromWriter }),
        });
        // Enqueued again while it ran (its lease token cleared): the new due time stands.
        if (lease.stop() === 'held') await removeDone(job.id, token);
      } catch (error) {
        if (lease.stop() === 'held') await recordFailedRun(runDeps, job, token, kind, error);
      }
    };
    const running: Promise<void> = handled()
      .catch((error: unknown) => log?.error({ err: error, kind: job.kind }, 'job outcome not recorded'))
      .finally(() => {
        releasePlace();
        runs.delete(running);
        // A run of the kinds sharing places may have enqueued the next job of its chain, due at
        // once (an overdue check-in's reminder): the sweep under way claims it.
        if (places === shared) claimAgain = true;
        wake();
      });
    runs.add(running);
    return running;
  }

  /** One claim of as many due jobs as there are free places, each kind within its own; each run at once. */
  async function claimAndRun(): Promise<{ started: number; full: boolean }> {
    const asking = [...new Set([...kinds.values()].map((kind) => kind.places))]
      .map((places) => ({ places, count: freePlaces(places) }))
      .filter(({ count }) => count > 0);
    if (stopped || asking.length === 0) return { started: 0, full: false };
    const kindsOf = (places: Places) => [...kinds.values()].filter((kind) => kind.places === places);
    const claimed = await claimDue(db, dialect, {
      arms: asking.map(({ places, count }) => ({ kinds: kindsOf(places).map((kind) => kind.name), count })),
      now: clock.now(),
      leaseMs,
      retryMs: CLAIM_RETRY_MS,
      log,
    });
    for (const { places, count } of asking) {
      places.moreDue = claimed.filter((job) => kinds.get(job.kind)?.places === places).length >= count;
    }
    // The claim holds no places while it waits: a transaction may have claimed some at write
    // meanwhile. What no place is left for goes back, due as it was.
    const unplaced: Job[] = [];
    for (const job of claimed) {
      const kind = kinds.get(job.kind) as Kind;
      if (freePlaces(kind.places) <= 0) {
        unplaced.push(job);
        continue;
      }
      kind.places.taken += 1;
      run(job, kind);
    }
    if (unplaced.length > 0) {
      await unclaim(db, unplaced);
      claimAgain = true;
    }
    return { started: claimed.length - unplaced.length, full: asking.some(({ places }) => places.moreDue) };
  }

  /** Resolves when a run ends or frees its place, on a call, or after `ms` (then to claim again). */
  async function woken(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(() => {
        claimAgain = true;
        resolve();
      }, ms);
      timer.unref();
    });
    clearTimeout(timer);
    wake = () => {};
  }

  /** Claims and runs until a claim finds nothing and nothing runs. */
  async function sweep(): Promise<number> {
    // Ends by clearing `sweeping` in the turn of its last look for a call, so none is left out
    // (always after a first await: `sweeping` is set by then).
    try {
      for (const kind of recurring) {
        // Its one row, due now unless one waits already (another process made it).
        await enqueue<string>(db, { kind, subject: RECURRING, dueAt: clock.now(), now: clock.now() }, 'keep');
        recurring.delete(kind);
      }
      let claimed = 0;
      for (;;) {
        claimAgain = false;
        const { started, full } = await claimAndRun();
        claimed += started;
        if (full) continue;
        while (!claimAgain) {
          if (runs.size === 0) {
            sweeping = null;
            return claimed;
          }
          // A run may last (a provider that does not answer): what falls due meanwhile is claimed within a second.
          await woken(CLAIM_WHILE_RUNNING_MS);
        }
        // Places a batch of runs frees one after another in this turn are claimed together, in the next.
        await nextTurn();
      }
    } catch (error) {
      sweeping = null;
      throw error;
    }
  }

  function runDue(): Promise<number> {
    claimAgain = true;
    wake();
    sweeping ??= sweep();
    return sweeping;
  }

  const kick = () => void runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run'));

  function handle(kind: K, handler: JobHandler, hooks: KindHooks = {}) {
    const set = settings[kind];
    if (!set) throw new Error(`job kind ${kind} is not in the registry of kinds (server/jobs/kinds.ts)`);
    if (kinds.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    const wrong = (['permanent', 'parked'] as const).find((hook) => Boolean(set[hook]) !== Boolean(hooks[hook]));
    if (wrong)
      throw new Error(`job kind ${kind}: its ${wrong} hook ${set[wrong] ? 'is missing' : 'is not in its settings'}`);
    kinds.set(kind, {
      name: kind,
      handler,
      hooks,
      // A recurring kind is never parked: a report that keeps failing is tried at the longest backoff.
      attempts: set.every ? Number.POSITIVE_INFINITY : (set.attempts ?? options.maxAttempts ?? JOB_MAX_ATTEMPTS),
      retry: set.retry ?? defaultRetry,
      places: set.concurrency === undefined ? shared : { size: set.concurrency, taken: 0, moreDue: true },
    });
  }

  function claimAtWrite<R extends K>(name: R, count: number): ClaimedAtWrite<R> {
    const kind = kinds.get(name);
    if (!kind) throw new Error(`no handler for jobs of kind ${name}`);
    const places = stopped ? 0 : Math.max(0, Math.min(count, freePlaces(kind.places)));
    kind.places.taken += places;
    const token = randomUUID();
    let leased: Job[] = [];
    let unleased = 0;
    let settle = () => {};
    const settled = new Promise<void>((resolve) => (settle = resolve));
    writes.add(settled);
    let open = true;
    /** Ends the write's hold on its places once: false when it had ended already. */
    const close = () => {
      if (!open) return false;
      open = false;
      writes.delete(settled);
      settle();
      return true;
    };
    return {
      places,
      rows(subjects, now) {
        // The lease counted from now, as the rows are written: the wait for the commit takes none of it.
        const until = clock.now() + leaseMs;
        const rows: JobInput<R>[] = subjects.map((subject, i) => ({
          kind: name,
          subject,
          dueAt: now,
          now,
          ...(i < places ? { id: orderedId(), lease: { until, token } } : {}),
        }));
        leased = rows.filter((row) => row.lease).map((row) => jobRow(row) as Job);
        unleased = rows.length - leased.length;
        return rows;
      },
      async run(fromWriter) {
        if (!close()) return;
        // Run even when the engine was stopped meanwhile (a shutdown while the change committed):
        // `stop` waits for these. A commit so slow that a lease may lapse before its first renewal
        // leaves that job to the claim that takes it over.
        const started: Promise<unknown>[] = [];
        for (const job of leased) {
          if (Number(job.lease_until) - clock.now() > renewMs) started.push(run(job, kind, fromWriter?.(job.subject)));
          else kind.places.taken -= 1;
        }
        kind.places.taken -= places - leased.length;
        // What was written without a place is claimed now, and waited for with the rest.
        if (unleased > 0 && !stopped) {
          kind.places.moreDue = true;
          started.push(runDue().catch((error: unknown) => log?.error({ err: error }, 'jobs could not be run')));
        }
        await Promise.all(started);
      },
      giveBack() {
        if (!close()) return;
        kind.places.taken -= places;
        if (kind.places.moreDue) kick();
      },
    };
  }

  return {
    handle,
    every(kind, work) {
      const everyMs = settings[kind]?.every;
      if (everyMs === undefined) throw new Error(`job kind ${kind} is not recurring in the registry of kinds`);
      handle(kind, async () => {
        await work();
        // Its next turn: enqueued while it runs, so the engine keeps the row instead of removing it.
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
    claimAtWrite,
    start() {
      stopped = false;
      kick();
    },
    async stop(waitMs = 10_000) {
      stopped = true;
      wake();
      const settled = (async () => {
        while (runs.size > 0 || writes.size > 0) await Promise.all([...runs, ...writes]);
        // Its failures are its callers' to handle: a stop that gave up waiting leaves none unhandled.
        await sweeping?.catch(() => undefined);
      })();
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([settled, new Promise<void>((resolve) => (giveUp = setTimeout(resolve, waitMs)))]);
      clearTimeout(giveUp);
    },
    failedCounts,
  };
}
