import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { groupsWrites, inGroupedTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { nextTurn } from '../../lib/background.js';
import type { Clock } from '../../lib/clock.js';
import {
  JOB_LEASE_MS,
  JOB_LEASE_RENEW_MS,
  SMS_LOOKUP_TIMEOUT_MS,
  SMS_MAX_ATTEMPTS,
  SMS_MAX_RETRY_MS,
  SMS_RETRY_MS,
  SMS_SEND_TIMEOUT_MS,
} from '../../lib/reliability.js';
import type { PaymentsPort } from '../../providers/payments/port.js';
import { isOptedOutError, type SmsPort } from '../../providers/sms/port.js';
import { optedOutAmong, optOut } from '../sms-replies/opt-outs.js';
import { type ClaimedDelivery, claimDue, markOptedOut } from './deliveries.js';
import { recordFailure } from './failed-attempts.js';
import { handOver } from './hand-over.js';
import type { Reservation } from './reservation.js';
import { sentRecorder } from './sent-records.js';

export interface DispatcherOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  sms: SmsPort;
  /** Where billable SMS are reported at once (the periodic usage report catches up otherwise). */
  payments?: PaymentsPort;
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** SMS handed to the provider at once, per process (default 10). */
  concurrency?: number;
  /** How long a claim holds a delivery without renewal before another dispatcher may take it over (ms). */
  leaseMs?: number;
  /** How often the leases of the deliveries this dispatcher holds are renewed (ms); below `leaseMs`. */
  renewMs?: number;
  /**
   * A send taking longer than this counts as failed and is retried (ms). The provider may have
   * taken it: the retry asks the provider first (unanswered.ts).
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

export type { Reservation } from './reservation.js';

export interface Dispatcher {
  /** Resumes whatever is due or abandoned; from then on `kick` and `sweep` dispatch. */
  start(): void;
  /** Stops claiming and waits (at most `waitMs`) for the sends in flight. */
  stop(waitMs?: number): Promise<void>;
  /** Dispatches due deliveries now, in the background (called right after an alert commits). */
  kick(): void;
  /** Takes up to `count` free sending slots for deliveries a transaction is about to write (none once stopped). */
  reserve(count: number): Reservation;
  /**
   * The periodic sweep (server/lib/periodic.ts, every second): claims due retries and
   * deliveries whose sender died; resolves once they are claimed (their sends go on).
   */
  sweep(): Promise<void>;
  /** Claims one batch of due deliveries and sends it; resolves with the number claimed once all are done. */
  runOnce(): Promise<number>;
  /** Sends everything due until nothing is due or in flight. */
  drain(): Promise<void>;
}

/**
 * Sends queued deliveries: claims them from the database so any number of
 * dispatchers (in one process or many) send each one once, hands them to the SMS
 * port concurrently, records usage for billing, and retries failures with backoff.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, dialect, sms, clock, log } = options;
  const concurrency = options.concurrency ?? 10;
  const leaseMs = options.leaseMs ?? JOB_LEASE_MS;
  const renewMs = options.renewMs ?? JOB_LEASE_RENEW_MS;
  const sendTimeoutMs = options.sendTimeoutMs ?? SMS_SEND_TIMEOUT_MS;
  const lookupTimeoutMs = SMS_LOOKUP_TIMEOUT_MS;
  const retries = {
    maxAttempts: options.maxAttempts ?? SMS_MAX_ATTEMPTS,
    baseDelayMs: options.baseDelayMs ?? SMS_RETRY_MS,
    maxDelayMs: options.maxDelayMs ?? SMS_MAX_RETRY_MS,
    random: options.random ?? Math.random,
  };
  /**
   * The deliveries this dispatcher holds, from its claim (or its alert's commit) until their
   * outcome is written: their leases are renewed every `renewMs`, so a short lease never lapses
   * under a live process, and a dead one's are taken over within `leaseMs`.
   */
  const holding = new Set<string>();
  let renewal: NodeJS.Timeout | undefined;
  async function renewLeases(): Promise<void> {
    if (holding.size === 0) return;
    await db
      .updateTable('deliveries')
      .set({ claimed_until: clock.now() + leaseMs })
      .where('id', 'in', [...holding])
      .where('status', '=', 'sending')
      .execute();
  }

  /** Sends at the provider, one per slot; then outcomes being written, their slots already free. */
  const inFlight = new Set<Promise<void>>();
  const writing = new Set<Promise<void>>();
  /** Slots reserved by transactions that have not committed yet, and slots a claim under way may fill. */
  let reserved = 0;
  let claiming = 0;
  /** The slots neither sending, lent to a transaction nor being filled by a claim. */
  const freeSlots = () => concurrency - inFlight.size - reserved - claiming;
  /** A transaction wrote SMS queued for want of a free slot: the next slot freed looks for them. */
  let queuedForSlot = false;
  let pumping: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  const via = {
    sms,
    lookupTimeoutMs,
    sendTimeoutMs,
    log,
    sent: sentRecorder({ db, dialect, clock, payments: options.payments }),
    failed: async (delivery: ClaimedDelivery, error: unknown) => {
      if (!isOptedOutError(error)) return recordFailure(db, delivery, error, { ...retries, now: clock.now() }, log);
      // The number said STOP to the carrier: it gets nothing more from Alerta, from any account.
      await optOut(db, delivery.phone_number, 'provider', clock.now());
      await markOptedOut(db, delivery.id, error instanceof Error ? error.message : String(error), clock.now());
    },
  };
  const logged = (d: ClaimedDelivery) => (err: unknown) => log?.error({ err, delivery: d.id }, 'SMS dispatch failed');

  /**
   * Starts sending a claimed delivery in a slot; `more` when a freed slot may find more due. The
   * slot bounds what the provider holds at once: it is freed as the provider answers, and the
   * outcome is written meanwhile.
   */
  function launch(delivery: ClaimedDelivery, more: boolean): void {
    holding.add(delivery.id);
    const task: Promise<void> = handOver(delivery, via)
      .then((write) => {
        const outcome: Promise<void> = write()
          .catch(logged(delivery))
          .finally(() => {
            writing.delete(outcome);
            holding.delete(delivery.id);
          });
        writing.add(outcome);
      })
      .catch((error: unknown) => {
        holding.delete(delivery.id);
        logged(delivery)(error);
      })
      .finally(() => {
        inFlight.delete(task);
        if ((more || queuedForSlot) && !stopped) {
          queuedForSlot = false;
          kick(true);
        }
      });
    inFlight.add(task);
  }

  /**
   * Claims as many due deliveries as there are free slots and starts sending them; `full`
   * when it filled them all (more may be waiting).
   */
  async function claimAndStart(): Promise<{ claimed: number; full: boolean }> {
    const free = freeSlots();
    if (free <= 0) return { claimed: 0, full: false };
    const claim = { now: clock.now(), leaseMs, limit: free };
    // Held while the claim waits for the database: a transaction reserving meanwhile is lent none of them.
    claiming += free;
    let claimed: ClaimedDelivery[];
    try {
      // Last in a shared commit where writes share one (it takes the SMS of every alert stored in
      // it); elsewhere one statement, its own transaction.
      claimed = groupsWrites(dialect)
        ? await inGroupedTransaction(db, (trx) => claimDue(trx, dialect, claim), { last: true })
        : await claimDue(db, dialect, claim);
    } finally {
      claiming -= free;
    }
    // A retry whose number said STOP since its first attempt goes no further (a first attempt
    // was checked as its alert was stored: no read on that path).
    const stopped = await optedOutAmong(
      db,
      claimed.filter((d) => d.attempts > 1).map((d) => d.phone_number),
    );
    // A full batch suggests more is waiting; a freed slot can take it.
    for (const delivery of claimed) {
      if (!stopped.has(delivery.phone_number)) launch(delivery, claimed.length === free);
    }
    for (const delivery of claimed.filter((d) => stopped.has(d.phone_number))) {
      await markOptedOut(db, delivery.id, 'Not sent: the number replied STOP.', clock.now()).catch(logged(delivery));
    }
    return { claimed: claimed.length, full: claimed.length === free };
  }

  /** Claims what is due into the free slots; `freed` when called as a send frees its slot. */
  function kick(freed = false): void {
    if (pumping) {
      again = true;
      return;
    }
    pumping = (async () => {
      // The slots a batch of sends frees are freed one after another in this turn: claimed
      // together in the next, one claim where there were one per slot.
      if (freed) await nextTurn();
      do {
        again = false;
        // A claim that filled every free slot may have left more due: claim again while slots are free.
        while ((await claimAndStart()).full) {}
      } while (again);
    })()
      .catch((error: unknown) => log?.error({ err: error }, 'SMS dispatcher could not claim deliveries'))
      .finally(() => {
        pumping = null;
        // A kick between the last look and now found the pump still running: it looks again.
        if (again && !stopped) kick();
      });
  }

  function reserve(count: number): Reservation {
    const slots = stopped ? 0 : Math.max(0, Math.min(count, freeSlots()));
    reserved += slots;
    let open = true;
    const giveBack = () => {
      if (!open) return false;
      open = false;
      reserved -= slots;
      return true;
    };
    return {
      slots,
      leaseUntil: () => clock.now() + leaseMs,
      start(claimed, queued) {
        if (!giveBack()) return;
        // Sent even when the dispatcher was stopped meanwhile (a shutdown while the alert
        // committed): `stop` waits for lent slots as for sends in flight. A commit so slow that
        // the lease written with the rows may lapse before its first renewal leaves them to the
        // sweep's claim once it has: another process may already be taking them.
        const fresh = claimed.slice(0, slots).filter((d) => Number(d.claimed_until) - clock.now() > renewMs);
        for (const delivery of fresh) launch(delivery, false);
        if (queued === 0 || stopped) return;
        queuedForSlot = true;
        kick();
      },
      release() {
        giveBack();
      },
    };
  }

  async function settle(): Promise<void> {
    while (pumping || inFlight.size > 0 || writing.size > 0 || reserved > 0) {
      // A transaction holding lent slots is about to commit and hand its SMS over: waited for too.
      const lent = reserved > 0 ? new Promise((resolve) => setTimeout(resolve, 5)) : undefined;
      await Promise.all([pumping, ...inFlight, ...writing, lent]);
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      renewal ??= setInterval(() => {
        renewLeases().catch((error: unknown) => log?.warn({ err: error }, 'SMS leases not renewed'));
      }, renewMs);
      renewal.unref();
      kick();
    },
    async stop(waitMs = 10_000) {
      stopped = true;
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([settle(), new Promise<void>((resolve) => (giveUp = setTimeout(resolve, waitMs)))]);
      clearTimeout(giveUp);
      clearInterval(renewal);
      renewal = undefined;
    },
    kick() {
      if (!stopped) kick();
    },
    reserve,
    async sweep() {
      if (stopped) return;
      kick();
      await pumping;
    },
    async runOnce() {
      await settle();
      const { claimed } = await claimAndStart();
      await settle();
      return claimed;
    },
    async drain() {
      do {
        await settle();
      } while ((await claimAndStart()).claimed > 0 || inFlight.size > 0);
      await settle();
    },
  };
}
