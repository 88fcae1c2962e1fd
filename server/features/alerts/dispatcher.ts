import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { inWriteTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { type ClaimedAtWrite, createJobs, type JobHandler, type Jobs, kindSettings } from '../../jobs/index.js';
import type { Clock } from '../../lib/clock.js';
import {
  SMS_LOOKUP_TIMEOUT_MS,
  SMS_MAX_ATTEMPTS,
  SMS_MAX_RETRY_MS,
  SMS_RETRY_MS,
  SMS_SEND_TIMEOUT_MS,
} from '../../lib/reliability.js';
import { isPermanent } from '../../providers/calls.js';
import type { PaymentsPort } from '../../providers/payments/port.js';
import { isOptedOutError, type SmsPort } from '../../providers/sms/port.js';
import { optedOutAmong, optOut } from '../sms-replies/index.js';
import { type ClaimedDelivery, markFailed, markOptedOut, takeDelivery } from './deliveries-repository.js';
import { recordFailure } from './failed-attempts.js';
import { handOver } from './hand-over.js';
import { sentRecorder } from './sent-records.js';

export type { ClaimedAtWrite } from '../../jobs/index.js';

export interface DispatcherOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  sms: SmsPort;
  /** Where billable SMS are reported at once (the periodic usage report catches up otherwise). */
  payments?: PaymentsPort;
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** The process's job engine, which runs the SMS jobs; without it, an engine of its own that runs only them. */
  jobs?: Pick<Jobs<'sms'>, 'handle' | 'start' | 'stop' | 'kick' | 'claimAtWrite' | 'runDue'>;
  /** SMS handed to the provider at once, per process (default 10). */
  concurrency?: number;
  /** The lease of an engine of its own (ms): how long a job is held without renewal before another process may take it. */
  leaseMs?: number;
  /** How often an engine of its own renews the leases of the SMS it sends (ms). */
  renewMs?: number;
  /**
   * A send taking longer than this counts as failed and is retried (ms). The provider may have
   * taken it: the retry asks the provider first (hand-over.ts).
   */
  sendTimeoutMs?: number;
  /** Attempts before a delivery fails for good (default 7: about 15 minutes of retries). */
  maxAttempts?: number;
  /** Wait after the first failure, doubled after each (ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number;
}

/** A process's SMS, as the rest of the server and the tests reach them: jobs of its engine. */
export interface Dispatcher {
  /** Takes jobs again after `stop`, and runs what is due. */
  start(): void;
  /** The engine takes no more jobs; waits (at most `waitMs`) for the runs in flight and the SMS claimed at write. */
  stop(waitMs?: number): Promise<void>;
  /** Runs the jobs due now, in the background (right after a commit that queued SMS). */
  kick(): void;
  /** Claims for this process up to `count` of the SMS a transaction is about to write, as many as it has free sending places (none once stopped). */
  claimAtWrite(count: number): ClaimedAtWrite<'sms'>;
  /** Runs what is due until nothing is due or running; resolves with how many jobs it claimed. */
  runOnce(): Promise<number>;
  /** Sends everything due until nothing is due or in flight. */
  drain(): Promise<void>;
}

/**
 * The SMS job's handler: takes its delivery (or is handed it by the transaction that claimed it
 * at write), asks the provider first when an earlier attempt went unanswered, hands it to the
 * provider with the delivery's id as the reference, frees its sending place as the provider
 * answers, and records the outcome: sent with its usage for billing (sent-records.ts), opted out
 * (the number said STOP: never retried, never billed), or failed (thrown for the engine's retry).
 */
function smsHandler(options: DispatcherOptions): JobHandler {
  const { db, dialect, sms, clock, log } = options;
  const via = {
    sms,
    lookupTimeoutMs: SMS_LOOKUP_TIMEOUT_MS,
    sendTimeoutMs: options.sendTimeoutMs ?? SMS_SEND_TIMEOUT_MS,
    log,
    sent: sentRecorder({ db, dialect, clock, payments: options.payments, log }),
    failed: async (delivery: ClaimedDelivery, error: unknown) => {
      if (!isOptedOutError(error)) return recordFailure(db, delivery, error, clock.now(), log);
      // The number said STOP to the carrier: it gets nothing more from Alerta, from any account.
      await optOut(db, delivery.phone_number, 'provider', clock.now());
      await markOptedOut(db, delivery.id, error instanceof Error ? error.message : String(error), clock.now());
    },
  };

  /** The delivery of a claimed job, taken for this attempt; undefined when there is nothing to send. */
  async function takeToSend(id: string): Promise<ClaimedDelivery | undefined> {
    // On SQLite in the commit of its turn's writes, with the alerts stored beside it.
    const delivery = await inWriteTransaction(db, dialect, (trx) => takeDelivery(trx, id, clock.now()));
    if (!delivery) return undefined;
    // A retry whose number said STOP since its first attempt goes no further (a first attempt
    // was checked as its alert was stored: no read on that path).
    if (delivery.attempts > 1 && (await optedOutAmong(db, [delivery.phone_number])).size > 0) {
      await markOptedOut(db, delivery.id, 'Not sent: the number replied STOP.', clock.now());
      return undefined;
    }
    return delivery;
  }

  return async (run) => {
    const delivery = (run.fromWriter as ClaimedDelivery | undefined) ?? (await takeToSend(run.subject));
    if (!delivery) return;
    const write = await handOver(delivery, run, via);
    // The provider has answered: its place takes the next SMS while the outcome is written.
    run.releasePlace?.();
    await write();
  };
}

/**
 * A process's SMS: each one a job of the job engine (kind `sms`, subject the delivery's id),
 * written with its delivery; at most `concurrency` handed to the provider at once, retried with
 * the SMS's backoff (`backoffMs`, ±20 % jitter), its delivery `failed` when the job is parked.
 * With `jobs` it registers the SMS jobs on the process's engine (their settings are the
 * registry's, server/jobs/kinds.ts); without, it runs an engine of its own that takes only them
 * (another process's, in tests), with the options' settings.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, dialect, clock, log } = options;
  const jobs =
    options.jobs ??
    createJobs({
      db,
      dialect,
      clock,
      ...(log ? { log } : {}),
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
      ...(options.renewMs === undefined ? {} : { renewMs: options.renewMs }),
      ...(options.random === undefined ? {} : { random: options.random }),
      kinds: {
        sms: {
          ...kindSettings({ SMS_CONCURRENCY: options.concurrency ?? 10 }).sms,
          attempts: options.maxAttempts ?? SMS_MAX_ATTEMPTS,
          retry: { firstMs: options.baseDelayMs ?? SMS_RETRY_MS, mostMs: options.maxDelayMs ?? SMS_MAX_RETRY_MS },
        },
      },
    });
  jobs.handle('sms', smsHandler(options), {
    permanent: isPermanent,
    parked: (trx, subject) => markFailed(trx, subject, clock.now()),
  });
  return {
    start: () => jobs.start(),
    stop: (waitMs) => jobs.stop(waitMs),
    kick: () => jobs.kick(),
    claimAtWrite: (count) => jobs.claimAtWrite('sms', count),
    runOnce: () => jobs.runDue(),
    async drain() {
      await jobs.runDue();
    },
  };
}
