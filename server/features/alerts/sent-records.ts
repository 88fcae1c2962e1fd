import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { inWriteTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { nextTurn } from '../../lib/background.js';
import type { Clock } from '../../lib/clock.js';
import type { PaymentsPort } from '../../providers/payments/port.js';
import {
  firstRealAlert,
  insertSmsUsage,
  reportSmsUsage,
  usageRows,
  type WrittenUsage,
  writtenUsage,
} from '../billing/index.js';
import type { ClaimedDelivery } from './deliveries-repository.js';
import { type AcceptedSend, markSent, markSentWithUsage, type WrittenUsageRow } from './deliveries-repository.js';

/**
 * Marks deliveries sent with the provider's ids and writes their usage, together, each only while
 * the run that sent it holds its job: on PostgreSQL in one statement (`markSentWithUsage`),
 * elsewhere in one write transaction (shared with the other writes of its turn on SQLite).
 * Answers the usage written and the deliveries marked.
 */
async function recordBatch(
  db: Kysely<Database>,
  dialect: Dialect,
  sent: AcceptedSend[],
  now: number,
): Promise<{ written: WrittenUsage[]; marked: Set<string> }> {
  const usageOf = ({ delivery }: AcceptedSend) => ({
    userId: delivery.user_id,
    deliveryId: delivery.id,
    alertId: delivery.alert_id,
    parts: delivery.parts,
    now,
  });
  if (dialect === 'postgres') {
    const rows = await markSentWithUsage(db, {
      rows: usageRows(sent.map(usageOf)),
      sent,
      now,
      firstRealAlert: (userId) => firstRealAlert(db, userId),
    });
    const written = rows.filter((row) => row.delivery_id != null) as WrittenUsageRow[];
    return { written: writtenUsage(written), marked: new Set(rows.map((row) => row.marked)) };
  }
  return inWriteTransaction(db, dialect, async (trx) => {
    const marked = await markSent(trx, sent, now);
    return { written: await insertSmsUsage(trx, sent.filter((s) => marked.has(s.delivery.id)).map(usageOf)), marked };
  });
}

/**
 * Records sends the provider accepted, many in one transaction: each marked sent with the
 * provider's id, its usage written for billing (and reported at once, with a meter). Returns
 * `recorded(delivery, providerMessageId, lease)`, which resolves once that send is recorded.
 */
export function sentRecorder(options: {
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  payments?: PaymentsPort | undefined;
  log?: Pick<FastifyBaseLogger, 'warn'> | undefined;
}): (delivery: ClaimedDelivery, providerMessageId: string, lease: string) => Promise<void> {
  const { db, dialect, clock, payments, log } = options;
  // Sends that finished and wait to be recorded: those that finish while a batch is being
  // written go in the next one, so one transaction marks many sent with their usage.
  let finished: (AcceptedSend & { done: (error?: unknown) => void })[] = [];
  let recording = false;

  /**
   * Resolves once the send is recorded as accepted, with its usage (and reported, with a meter),
   * or logged as not recorded: its run no longer held the job (`lease`), and the run that took it
   * over writes the outcome.
   */
  function recorded(delivery: ClaimedDelivery, providerMessageId: string, lease: string): Promise<void> {
    return new Promise((resolve, reject) => {
      finished.push({ delivery, providerMessageId, lease, done: (error) => (error ? reject(error) : resolve()) });
      if (!recording) {
        recording = true;
        void recordFinished();
      }
    });
  }

  async function recordFinished(): Promise<void> {
    // The sends of one claim finish within a turn of the event loop of each other.
    await nextTurn();
    while (finished.length > 0) {
      const batch = finished;
      finished = [];
      try {
        const { written, marked } = await recordBatch(db, dialect, batch, clock.now());
        for (const { delivery } of batch) {
          if (marked.has(delivery.id)) continue;
          log?.warn(
            { delivery: delivery.id },
            'SMS sent by a run whose job was taken over: not recorded, the other run records its outcome',
          );
        }
        await reportSmsUsage(db, written, payments);
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.done(error);
      }
    }
    // Cleared in the same turn as the last check: a send finishing after it starts a new batch.
    recording = false;
  }

  return recorded;
}
