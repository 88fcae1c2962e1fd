import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { smsParts } from '../../../common/sms-encoding.js';
import type { Database, Db, Delivery, DeliveryKind, DeliveryStatus, NewDelivery } from '../../db/schema.js';
import { enqueueMany, jobRow } from '../../jobs/index.js';
import { orderedId } from '../../lib/ids.js';
import type { ProviderStatus } from '../../providers/sms/port.js';

/** SMS parts a text is sent (and billed) as: at least one. */
export const partsOf = (body: string) => Math.max(1, smsParts(body));

/**
 * The `next_attempt_at` of every delivery the job engine sends (its due time is its job's): never
 * due to the claim of a process of an older version, which claimed deliveries by that column, so
 * that a process still running the old code during a rolling deploy sends none of them a second
 * time. `claimed_until` stays null for the same reason: that older claim took back a `sending`
 * delivery only once a lease written there had lapsed.
 */
export const NOT_FOR_OLDER_CLAIMS = Number.MAX_SAFE_INTEGER;

/** The job of a delivery written queued, due now: for a transaction that writes it beside the delivery. */
export const smsJob = (delivery: { id: string }, now: number) => ({
  kind: 'sms' as const,
  subject: delivery.id,
  dueAt: now,
  now,
});

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
 * The one way a delivery row is made: one SMS of `body` to one recipient, queued, with the SMS
 * parts it takes (what budgets and billing count); its job (`smsJob`) is written with it, in the
 * same transaction. `kind` tells the alert's own SMS from the all-clear.
 */
export function queuedDelivery(input: {
  alertId: string;
  recipient: { contact_name: string; phone_number: string };
  body: string;
  now: number;
  kind?: DeliveryKind;
}): NewDelivery {
  const { alertId, recipient, body, now, kind = 'alert' } = input;
  return {
    id: orderedId(),
    alert_id: alertId,
    kind,
    contact_name: recipient.contact_name,
    phone_number: recipient.phone_number,
    body,
    parts: partsOf(body),
    status: 'queued',
    attempts: 0,
    next_attempt_at: NOT_FOR_OLDER_CLAIMS,
    claimed_until: null,
    provider_message_id: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/** A delivery being sent by this process, with the alert's owner for billing. */
export type ClaimedDelivery = Delivery & { user_id: string };

/**
 * The first `slots` of the deliveries still queued written already being sent (`sending`, the
 * attempt counted), as `takeDelivery` would leave them: their jobs are written leased to this
 * process (`claimAtWrite`), which sends them after the commit. The rest are as given.
 */
export function claimedOnInsert(rows: NewDelivery[], taken: { slots: number; now: number }): NewDelivery[] {
  let left = taken.slots;
  return rows.map((row) => {
    if (left <= 0 || row.status !== 'queued') return row;
    left -= 1;
    return { ...row, status: 'sending', attempts: (row.attempts ?? 0) + 1, updated_at: taken.now };
  });
}

/** A delivery written by `claimedOnInsert` as its job's run sends it, with its alert's owner. */
export const asClaimed = (row: NewDelivery, userId: string): ClaimedDelivery => ({
  kind: 'alert',
  parts: partsOf(row.body),
  withheld_reason: null,
  contact_key_hash: null,
  unanswered_since: null,
  ...row,
  claimed_until: row.claimed_until ?? null,
  provider_message_id: row.provider_message_id ?? null,
  last_error: row.last_error ?? null,
  user_id: userId,
});

/**
 * Takes the delivery of an SMS job for its attempt: `sending`, the attempt counted, unless it is
 * no longer to send (sent, opted out, failed) or a process of an older version holds it (its
 * `claimed_until` not yet lapsed): then undefined. A delivery found `sending` had an attempt
 * whose outcome nobody wrote (its process died, or its lease was taken over): it keeps when that
 * attempt began in `unanswered_since`, and the provider is asked before it is sent again. One
 * statement, which returns the row with its alert's owner (for billing): no read after it.
 */
export async function takeDelivery(db: Db, id: string, now: number): Promise<ClaimedDelivery | undefined> {
  const taken = await db
    .updateTable('deliveries')
    .set({
      status: 'sending',
      attempts: sql<number>`attempts + 1`,
      next_attempt_at: NOT_FOR_OLDER_CLAIMS,
      claimed_until: null,
      // The old row's values: a `sending` row was last updated by the attempt that was never answered.
      unanswered_since: sql<
        number | null
      >`case when status = 'sending' then coalesce(unanswered_since, updated_at) else unanswered_since end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'sending'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)])]),
      ]),
    )
    .returningAll()
    .returning(sql<string>`(select alerts.user_id from alerts where alerts.id = deliveries.alert_id)`.as('user_id'))
    .executeTakeFirst();
  return taken as ClaimedDelivery | undefined;
}

/**
 * Gives their jobs to the deliveries a process of an older version queued (it claimed them by
 * `next_attempt_at`, and wrote none), at most 500 a call: each due when that process would have
 * taken it (a `sending` one when its lease lapses), and no longer due to its claim
 * (`NOT_FOR_OLDER_CLAIMS`) once it has its job. One transaction. Returns how many got one.
 */
export async function adoptOlderDeliveries(db: Kysely<Database>, now: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const older = (eb: ExpressionBuilder<Database, 'deliveries'>) =>
      eb.and([eb('status', 'in', ['queued', 'sending']), eb('next_attempt_at', '<', NOT_FOR_OLDER_CLAIMS)]);
    const found = await trx
      .selectFrom('deliveries')
      .select(['id', 'status', 'next_attempt_at', 'claimed_until'])
      .where(older)
      .limit(500)
      .execute();
    if (found.length === 0) return 0;
    await trx
      .insertInto('jobs')
      .values(
        found.map((d) =>
          jobRow({
            kind: 'sms',
            subject: d.id,
            dueAt: Number(d.status === 'sending' ? (d.claimed_until ?? now) : d.next_attempt_at),
            now,
          }),
        ),
      )
      .onConflict((oc) => oc.columns(['kind', 'subject']).doNothing())
      .execute();
    // Only those with a job: a row queued by the older process meanwhile waits for the next call.
    await trx
      .updateTable('deliveries')
      .set({ next_attempt_at: NOT_FOR_OLDER_CLAIMS })
      .where(
        'id',
        'in',
        found.map((d) => d.id),
      )
      .where(older)
      .execute();
    return found.length;
  });
}

/** Whether a delivery not taken is still to send: held by a process of an older version (its lease not lapsed). */
export async function heldElsewhere(db: Db, id: string): Promise<boolean> {
  const row = await db.selectFrom('deliveries').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status === 'queued' || row?.status === 'sending';
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
      claimed_until: null,
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
    .set({ status: 'opted_out', claimed_until: null, last_error: reason.slice(0, 500), updated_at: now })
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
  const terminal = status !== 'sent';
  const result = await db
    .updateTable('deliveries')
    .set({
      status,
      updated_at: now,
      ...(terminal ? { claimed_until: null } : {}),
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
