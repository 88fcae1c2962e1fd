import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from '../db/index.js';
import type { Database, Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { JobInput } from './enqueue.js';

// The job engine's (engine.ts) types: what a handler is told, what a kind may set, what the
// engine offers.

/** What a handler is told about the job it runs. */
export interface DueJob {
  subject: string;
  /** When it was due: a run late after a restart still knows the real time. */
  dueAt: number;
  /** 1 on the first run, more after failures or a takeover. */
  attempt: number;
  /** Aborted when another process has taken the job over (this run's lease lapsed): stop, leave the effect to it. */
  signal: AbortSignal;
  /**
   * Whether this run still holds its job: at once while more than half its last lease is left,
   * else asked of the database (its lease renewed when it does). Checked right before an effect it
   * cannot take back (a provider call). False once the job is no longer this run's: taken over by
   * another process (the signal then aborted too) and maybe done by it, or enqueued again or
   * cancelled by a change. A run stalled past its lease may not have
   * been told through its signal yet.
   */
  holds(): Promise<boolean>;
  /** This run's lease token: a write made conditional on it (`heldBy`, enqueue.ts) changes nothing once the job was taken over. */
  leaseToken: string;
  /**
   * Gives this run's place among its kind's to the next job before the handler ends: its effect
   * is handed over (the provider answered) and what is left is bookkeeping, which holds back no
   * other job of the kind. The lease is held until the handler ends all the same.
   */
  releasePlace?(): void;
  /**
   * What the transaction that wrote this job handed its run (`claimAtWrite`), so that the run
   * reads nothing back; absent when a claim took the job.
   */
  fromWriter?: unknown;
}

/**
 * Runs the jobs of one kind. It may run again for the same due time (a failure, a process that
 * died mid-run): it makes its effect conditional on its own rows (a status moved in the same
 * transaction as the work), so the effect happens once. A throw retries it with backoff.
 */
export type JobHandler = (job: DueJob) => Promise<void>;

export interface JobsOptions<K extends string = string> {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The server's clock, set to the database's (`DatabaseClock`): due times and leases mean the same to every process. */
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** The kinds this engine runs and how (server/jobs/kinds.ts lists the server's): it refuses any other. */
  kinds: Record<K, KindSettings>;
  /** How long a claim holds a job without renewal before another process may take it over (ms). */
  leaseMs?: number;
  /** How often a running job's lease is renewed (ms); below `leaseMs`. */
  renewMs?: number;
  /** Jobs of the kinds without a `concurrency` of their own run at once, per process. */
  batch?: number;
  /** Wait after a failed run, doubled after each further one, up to `maxRetryMs` (ms), with ±20 % jitter. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Source of that jitter in [0, 1) (`Math.random`); injectable for tests. */
  random?: () => number;
  /** Runs before a job is parked as failed, for a kind that sets none. */
  maxAttempts?: number;
}

/** How the engine runs the jobs of one kind. */
export interface KindSettings {
  /**
   * Runs of this kind in flight at once in this process (a provider's bound), apart from the
   * other kinds, which share `batch`; a claim takes no more of the kind than it has free places.
   */
  concurrency?: number;
  /** Runs before a job of this kind is parked as failed. */
  attempts?: number;
  /** Its own backoff: the wait after the first failure, doubled after each further one up to `mostMs`, ±20 % jitter. */
  retry?: { firstMs: number; mostMs: number };
  /** A recurring kind (`Jobs.every`): its one row runs once every this many ms across processes, and is never parked. */
  every?: number;
  /** Which failures are permanent (parked at once): the hook that tells comes with the handler. */
  permanent?: string;
  /** What the kind's own rows show of a job parked: the hook that writes it comes with the handler. */
  parked?: string;
  /** When it is registered in some configurations only: a process without its handler still starts. */
  onlyWhen?: string;
}

/** The hooks a feature registers with its handler, those its kind's settings name. */
export interface KindHooks {
  /** A failure no retry can mend (a number the provider refuses for good): the job is parked at once. */
  permanent?: (error: unknown) => boolean;
  /** Writes what the kind's own rows show of a job given up on, in the transaction that parks it. */
  parked?: (db: Db, subject: string, error: unknown) => Promise<void>;
}

export interface Jobs<K extends string = string> {
  /**
   * Registers the handler of `kind`, with the hooks its settings name: a kind not in `kinds`, one
   * registered twice, or a hook missing or not named refuses (throws, naming the kind).
   */
  handle(kind: K, handler: JobHandler, hooks?: KindHooks): void;
  /**
   * Registers a recurring kind's run (a report, a cleanup): once every `every` of its settings
   * across all processes, not once per process, the first as soon as a server sweeps; a run that
   * fails is retried as any job.
   */
  every(kind: K, run: () => Promise<unknown>): void;
  /**
   * Before the first sweep: refuses (throws, naming them) when a kind has no handler (but for
   * `onlyWhen`), and logs at error each kind of the rows waiting that no handler here knows.
   */
  ready(): Promise<void>;
  /**
   * Runs every job due now, until none is and none is running; resolves with how many it claimed
   * (the sweep every second, and tests).
   */
  runDue(): Promise<number>;
  /** Runs what is due now in the background (after a commit that set a job due at once). */
  kick(): void;
  /**
   * Claims, for this process, up to `count` jobs of `kind` that a transaction is about to write,
   * as many as `kind` has free places (none once stopped): they are written leased to this
   * process and run by it right after the commit, with no claim statement to find them.
   */
  claimAtWrite<R extends K>(kind: R, count: number): ClaimedAtWrite<R>;
  /** Takes jobs again after `stop`, and runs what is due. */
  start(): void;
  /** Takes no more jobs; waits (at most `waitMs`) for the runs in flight and the jobs claimed at write. */
  stop(waitMs?: number): Promise<void>;
  /** Jobs parked as failed since this process started, by kind (the operator's count). */
  readonly failedCounts: ReadonlyMap<string, number>;
}

/**
 * The jobs a transaction claimed as it wrote them (`Jobs.claimAtWrite`): `places` of them are
 * written leased to this process (`rows`), and run by it after the commit (`run`).
 */
export interface ClaimedAtWrite<K extends string = string> {
  /** How many of the jobs this process took: at most this many are written leased to it. */
  readonly places: number;
  /** The jobs for `subjects`, due now: the first `places` leased to this process from now, the rest for any to claim. */
  rows(subjects: string[], now: number): JobInput<K>[];
  /**
   * After the commit: runs the jobs written leased, each handed `fromWriter(subject)`, and claims
   * the rest; resolves once those runs have ended.
   */
  run(fromWriter?: (subject: string) => unknown): Promise<void>;
  /** Nothing was written (rolled back): gives the places back. */
  giveBack(): void;
}

/** Places for runs in flight in this process: a kind's own, or those the kinds without one share. */
export interface Places {
  size: number;
  /** Taken by runs in flight, and by transactions about to commit jobs they claimed at write. */
  taken: number;
  /** The last claim took all it asked for: more may be due, so a place freed claims again. */
  moreDue: boolean;
}

/** A kind this process runs: its handler and hooks, its attempts and backoff, its places. */
export interface Kind {
  name: string;
  handler: JobHandler;
  hooks: KindHooks;
  attempts: number;
  retry: { firstMs: number; mostMs: number };
  places: Places;
}
