import type { FastifyBaseLogger } from 'fastify';
import { type Expression, type Kysely, sql } from 'kysely';
import { inWriteTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database, Db } from '../../db/schema.js';
import { heldBy } from '../../jobs/index.js';
import { nextTurn } from '../../lib/background.js';
import type { Clock } from '../../lib/clock.js';
import type { PaymentsPort } from '../../providers/payments/port.js';
import { firstRealAlert } from '../billing/repository.js';
import { insertSmsUsage, reportSmsUsage, usageRows, type WrittenUsage, writtenUsage } from '../billing/usage.js';
import { type ClaimedDelivery, SENT_STATUS, sentMarking } from './deliveries.js';

/** A send the provider accepted, by the run whose lease token is `lease`. */
interface Accepted {
  delivery: ClaimedDelivery;
  providerMessageId: string;
  lease: string;
}

/** A usage row as the combined statement answers it; its usage columns null where the row had one already. */
type WrittenRow = { marked: string } & Partial<Parameters<typeof writtenUsage>[0][number]>;

/** Only while the run that sent it still holds the SMS's job: a run taken over writes nothing. */
const ownRun = (lease: Expression<string>) => heldBy('sms', sql.ref('deliveries.id'), lease);

/**
 * The PostgreSQL statement that marks deliveries sent and writes their usage (`sentMarking` and
 * `usageInsert` as one): its WITH always runs, so one round trip and no BEGIN and COMMIT. The
 * sends come as arrays, one value each, so its text is the same however many finished together:
 * each connection prepares it once and keeps its plan (one text per batch size was planned again
 * and again, a third of its cost). The user's first real alert is read once per user. Answers
 * each delivery it marked, with its usage where it wrote one.
 */
function markedWithUsage(db: Db, rows: ReturnType<typeof usageRows>, sent: Accepted[], now: number) {
  const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
  return sql<WrittenRow>`with sent as (
    select * from unnest(
      ${column((r) => r.delivery_id)}::text[], ${sent.map((s) => s.providerMessageId)}::text[],
      ${sent.map((s) => s.lease)}::text[],
      ${column((r) => r.id)}::text[], ${column((r) => r.user_id)}::text[], ${column((r) => r.alert_id)}::text[],
      ${column((r) => r.parts)}::integer[]
    ) as s(delivery_id, provider_message_id, lease, usage_id, user_id, alert_id, parts)
  ), marked as (
    update deliveries set
      status = ${SENT_STATUS},
      provider_message_id = sent.provider_message_id,
      claimed_until = null, last_error = null, updated_at = ${now}::bigint
    from sent where deliveries.id = sent.delivery_id and ${ownRun(sql.ref('sent.lease'))}
    returning deliveries.id
  ), firsts as (
    select owners.user_id, (${firstRealAlert(db, sql.ref('owners.user_id'))}) as alert_id
    from (select distinct user_id from sent) as owners
  ), written as (
    insert into usage_records (id, user_id, delivery_id, parts, reported_at, created_at, billable)
    select sent.usage_id, sent.user_id, sent.delivery_id, sent.parts, null, ${now}::bigint,
      case when firsts.alert_id = sent.alert_id then 0 else 1 end
    from sent join marked on marked.id = sent.delivery_id join firsts on firsts.user_id = sent.user_id
    on conflict (delivery_id) do nothing
    returning delivery_id, billable, created_at
  )
  select marked.id as marked, written.delivery_id, written.billable, written.created_at
  from marked left join written on written.delivery_id = marked.id`;
}

/**
 * Marks deliveries sent with the provider's ids and writes their usage, together, each only while
 * the run that sent it holds its job: on PostgreSQL in one statement (`markedWithUsage`),
 * elsewhere in one write transaction (shared with the other writes of its turn on SQLite).
 * Answers the usage written and the deliveries marked.
 */
async function markSentWithUsage(
  db: Kysely<Database>,
  dialect: Dialect,
  sent: Accepted[],
  now: number,
): Promise<{ written: WrittenUsage[]; marked: Set<string> }> {
  const usageOf = ({ delivery }: Accepted) => ({
    userId: delivery.user_id,
    deliveryId: delivery.id,
    alertId: delivery.alert_id,
    parts: delivery.parts,
    now,
  });
  if (dialect === 'postgres') {
    const { rows } = await markedWithUsage(db, usageRows(sent.map(usageOf)), sent, now).execute(db);
    const written = rows.filter((row) => row.delivery_id != null) as Parameters<typeof writtenUsage>[0];
    return { written: writtenUsage(written), marked: new Set(rows.map((row) => row.marked)) };
  }
  const marks = sent.map(({ delivery, providerMessageId }) => ({ id: delivery.id, providerMessageId }));
  const leases = sql.join(
    sent.map((s) => sql`when ${s.delivery.id} then ${s.lease}`),
    sql` `,
  );
  return inWriteTransaction(db, dialect, async (trx) => {
    const rows = await sentMarking(trx, marks, now)
      .where(ownRun(sql<string>`case deliveries.id ${leases} end`))
      .returning('id')
      .execute();
    const marked = new Set(rows.map((row) => row.id));
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
  let finished: (Accepted & { done: (error?: unknown) => void })[] = [];
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
        const { written, marked } = await markSentWithUsage(db, dialect, batch, clock.now());
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
