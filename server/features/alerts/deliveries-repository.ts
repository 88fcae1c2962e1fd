import { type Expression, type Kysely, sql } from 'kysely';
import type { Database, Db, Delivery, DeliveryStatus, NewDelivery } from '../../db/schema.js';
import { enqueueMany, heldBy } from '../../jobs/index.js';
import type { ProviderStatus } from '../../providers/sms/port.js';

/** The job of a delivery written queued, due now: for a transaction that writes it beside the delivery. */
export const smsJob = (delivery: { id: string }, now: number) => ({
  kind: 'sms' as const,
  subject: delivery.id,
  dueAt: now,
  now,
});

/** A delivery being sent by this process, with the alert's owner for billing. */
export type ClaimedDelivery = Delivery & { user_id: string };

/** Stores deliveries made by `queuedDelivery`, each with its SMS job, due now: in the caller's transaction. */
export async function insertDeliveries(db: Db, rows: NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('deliveries').values(rows).execute();
  await enqueueMany(
    db,
    rows.map((row) => smsJob(row, row.created_at)),
  );
}

/**
 * Takes the delivery of an SMS job for its attempt: `sending`, the attempt counted, unless it is
 * past sending (sent, opted out, failed): then undefined. A delivery found `sending` had an
 * attempt whose outcome nobody wrote (its process died, or its lease was taken over): it keeps
 * when that attempt began in `unanswered_since`, and the provider is asked before it is sent
 * again. One statement, which returns the row with its alert's owner (for billing): no read
 * after it.
 */
export async function takeDelivery(db: Db, id: string, now: number): Promise<ClaimedDelivery | undefined> {
  const taken = await db
    .updateTable('deliveries')
    .set({
      status: 'sending',
      attempts: sql<number>`attempts + 1`,
      // The old row's values: a `sending` row was last updated by the attempt that was never answered.
      unanswered_since: sql<
        number | null
      >`case when status = 'sending' then coalesce(unanswered_since, updated_at) else unanswered_since end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'sending'])
    .returningAll()
    .returning(sql<string>`(select alerts.user_id from alerts where alerts.id = deliveries.alert_id)`.as('user_id'))
    .executeTakeFirst();
  return taken as ClaimedDelivery | undefined;
}

/** A delivery's status once the provider took it: a receipt may have moved it on already, and keeps it. */
export const SENT_STATUS = sql<DeliveryStatus>`case when status in ('queued', 'sending') then 'sent' else status end`;

/**
 * The statement that records the provider's acceptance of several deliveries (those whose sends
 * finished together); it never moves a delivery a receipt already advanced. `sent` is not empty.
 */
export function sentMarking(db: Db, sent: { id: string; providerMessageId: string }[], now: number) {
  const ids = sql.join(
    sent.map((s) => sql`when ${s.id} then ${s.providerMessageId}`),
    sql` `,
  );
  return db
    .updateTable('deliveries')
    .set({
      status: SENT_STATUS,
      provider_message_id: sql<string>`case id ${ids} end`,
      last_error: null,
      updated_at: now,
    })
    .where(
      'id',
      'in',
      sent.map((s) => s.id),
    );
}

/**
 * Records a failed attempt: the delivery is `queued` again (its job is due again after the
 * backoff, or parked, and then `markFailed`) with the reason; `unansweredSince` when the provider
 * never answered it (kept for every later attempt).
 */
export async function markAttemptFailed(
  db: Db,
  id: string,
  failure: { reason: string; now: number; unansweredSince?: number | undefined },
) {
  const { reason, now, unansweredSince } = failure;
  await db
    .updateTable('deliveries')
    .set({
      status: 'queued',
      last_error: reason.slice(0, 500),
      ...(unansweredSince === undefined ? {} : { unanswered_since: unansweredSince }),
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** A delivery whose job was parked (out of attempts, or refused for good): `failed`, as the page shows it. */
export async function markFailed(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ status: 'failed', updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'sending'])
    .execute();
}

/** A delivery the provider refused because its number said STOP (Twilio's 21610): never retried, never billed. */
export async function markOptedOut(db: Kysely<Database>, id: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ status: 'opted_out', last_error: reason.slice(0, 500), updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/** The statuses a provider report may move a delivery from: never backwards, never out of a final state. */
const ALLOWED_FROM: Record<ProviderStatus, DeliveryStatus[]> = {
  sent: ['queued', 'sending'],
  delivered: ['queued', 'sending', 'sent'],
  undelivered: ['queued', 'sending', 'sent'],
  failed: ['queued', 'sending', 'sent'],
};

/**
 * Applies a provider's status report to the delivery it names (by our delivery id
 * or the provider's message id). Duplicate and out-of-order reports change nothing.
 * Returns true when the status moved.
 */
export async function applyProviderStatus(
  db: Kysely<Database>,
  report: { deliveryId?: string; providerMessageId?: string; status: ProviderStatus; reason?: string; now: number },
): Promise<boolean> {
  const { deliveryId, providerMessageId, status, reason, now } = report;
  if (!deliveryId && !providerMessageId) return false;
  const result = await db
    .updateTable('deliveries')
    .set({
      status,
      updated_at: now,
      ...(providerMessageId ? { provider_message_id: providerMessageId } : {}),
      ...(reason && (status === 'failed' || status === 'undelivered') ? { last_error: reason.slice(0, 500) } : {}),
    })
    .where((eb) =>
      deliveryId ? eb('id', '=', deliveryId) : eb('provider_message_id', '=', providerMessageId as string),
    )
    .where('status', 'in', ALLOWED_FROM[status])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A send the provider accepted, by the run whose lease token is `lease`. */
export interface AcceptedSend {
  delivery: ClaimedDelivery;
  providerMessageId: string;
  lease: string;
}

/** A usage row to write with its delivery's mark (billing's `usageRows`). */
interface UsageRow {
  id: string;
  user_id: string;
  alert_id: string;
  delivery_id: string;
  parts?: number | undefined;
}

/** A usage row as written: what billing's `writtenUsage` takes. */
export interface WrittenUsageRow {
  delivery_id: string;
  billable: number;
  created_at: number;
}

/** A row the combined statement answers: the delivery marked, its usage columns null where it had one already. */
type MarkedRow = { marked: string } & Partial<WrittenUsageRow>;

/** Only while the run that sent it still holds the SMS's job: a run taken over writes nothing. */
const ownRun = (lease: Expression<string>) => heldBy('sms', sql.ref('deliveries.id'), lease);

/**
 * The PostgreSQL statement that marks deliveries sent and writes their usage as one: its WITH
 * always runs, so one round trip and no BEGIN and COMMIT. The sends come as arrays, one value
 * each, so its text is the same however many finished together: each connection prepares it
 * once and keeps its plan (a text per batch size would be parsed and planned again at each new
 * size). `firstRealAlert` is billing's read of a user's first real alert (its SMS are not
 * billed), read once per user. Answers each delivery it marked, with its usage where it wrote one.
 */
export async function markSentWithUsage(
  db: Db,
  input: {
    rows: UsageRow[];
    sent: AcceptedSend[];
    now: number;
    firstRealAlert: (userId: Expression<string>) => Expression<unknown>;
  },
): Promise<MarkedRow[]> {
  const { rows, sent, now } = input;
  const column = <T>(pick: (row: UsageRow) => T) => rows.map(pick);
  const { rows: marked } = await sql<MarkedRow>`with sent as (
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
      last_error = null, updated_at = ${now}::bigint
    from sent where deliveries.id = sent.delivery_id and ${ownRun(sql.ref('sent.lease'))}
    returning deliveries.id
  ), firsts as (
    select owners.user_id, (${input.firstRealAlert(sql.ref('owners.user_id'))}) as alert_id
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
  from marked left join written on written.delivery_id = marked.id`.execute(db);
  return marked;
}

/**
 * Marks deliveries sent with the provider's ids, each only while the run that sent it holds its
 * job (`sentMarking` with the lease of each); answers the ids marked.
 */
export async function markSent(db: Db, sent: AcceptedSend[], now: number): Promise<Set<string>> {
  const marks = sent.map(({ delivery, providerMessageId }) => ({ id: delivery.id, providerMessageId }));
  const leases = sql.join(
    sent.map((s) => sql`when ${s.delivery.id} then ${s.lease}`),
    sql` `,
  );
  const rows = await sentMarking(db, marks, now)
    .where(ownRun(sql<string>`case deliveries.id ${leases} end`))
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}
