import { type Compilable, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { smsParts } from '../../../common/sms-encoding.js';
import { claimQuery } from '../../db/claim.js';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Dialect } from '../../db/index.js';
import type { Database, Db, Delivery, DeliveryKind, DeliveryStatus, NewDelivery } from '../../db/schema.js';
import { orderedId } from '../../lib/ids.js';
import type { ProviderStatus } from '../../providers/sms/port.js';

/** SMS parts a text is sent (and billed) as: at least one. */
export const partsOf = (body: string) => Math.max(1, smsParts(body));

/**
 * The one way a delivery row is made: one SMS of `body` to one recipient, queued and due
 * now, for the dispatcher to claim, with the SMS parts it takes (what budgets and billing
 * count). `kind` tells the alert's own SMS from the all-clear.
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
    next_attempt_at: now,
    claimed_until: null,
    provider_message_id: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/** A delivery taken by one dispatcher, with the alert's owner for billing. */
export type ClaimedDelivery = Delivery & { user_id: string };

/**
 * The first `slots` of the deliveries still queued written already taken, as `claimDue` would
 * leave them (`sending` under a lease until `leaseUntil`, the attempt counted): the transaction
 * that stores them claims them, and its dispatcher sends them after the commit. The rest are as given.
 */
export function claimedOnInsert(
  rows: NewDelivery[],
  taken: { slots: number; leaseUntil: number; now: number },
): NewDelivery[] {
  let left = taken.slots;
  return rows.map((row) => {
    if (left <= 0 || row.status !== 'queued') return row;
    left -= 1;
    return {
      ...row,
      status: 'sending',
      attempts: (row.attempts ?? 0) + 1,
      claimed_until: taken.leaseUntil,
      updated_at: taken.now,
    };
  });
}

/** A delivery written by `claimedOnInsert` as the dispatcher sends it, with its alert's owner. */
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
 * Atomically takes up to `limit` deliveries that are due (queued and due, or left
 * `sending` by a dispatcher whose lease ran out), marks them `sending` under a lease
 * and counts the attempt. A delivery taken over while `sending` had an attempt nobody saw
 * answered: it keeps when that attempt began (its claim) in `unanswered_since`. On PostgreSQL
 * rows another dispatcher holds are skipped (FOR UPDATE SKIP LOCKED); on SQLite the single
 * UPDATE ... RETURNING holds the write lock.
 */
export async function claimDue(
  db: Kysely<Database>,
  dialect: Dialect,
  options: { now: number; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  const { now, leaseMs, limit } = options;
  if (limit <= 0) return [];
  return dueClaim(db, dialect, { now, claimedUntil: now + leaseMs, limit });
}

/**
 * The claim of `claimDue`, built once: the dispatcher claims whenever slots free up, and
 * building it each time cost the server more than PostgreSQL spent running it.
 */
const dueClaim = compiledOnce<{ now: number; claimedUntil: number; limit: number }, ClaimedDelivery>(
  (db, value, dialect) => {
    const now = value('now');
    // Queued and due, or left `sending` by a dispatcher whose lease ran out: each a range of
    // deliveries_due_idx (status, next_attempt_at).
    const due = [
      (w: ExpressionBuilder<Database, 'deliveries'>) =>
        w.and([w('deliveries.status', '=', 'queued'), w('deliveries.next_attempt_at', '<=', now)]),
      (w: ExpressionBuilder<Database, 'deliveries'>) =>
        w.and([w('deliveries.status', '=', 'sending'), w('deliveries.claimed_until', '<', now)]),
    ];
    const claim = {
      status: 'sending' as const,
      claimed_until: value('claimedUntil'),
      attempts: sql<number>`attempts + 1`,
      // The old row's values: a `sending` row was last updated by the claim that abandoned it.
      unanswered_since: sql<
        number | null
      >`case when status = 'sending' then coalesce(unanswered_since, updated_at) else unanswered_since end`,
      updated_at: now,
    };
    // Each row comes back with its alert's owner, for billing: no read after the claim.
    const owner = sql<string>`(select alerts.user_id from alerts where alerts.id = deliveries.alert_id)`;
    const query = claimQuery(db, dialect, 'deliveries', {
      due,
      orderBy: 'next_attempt_at',
      set: claim,
      limit: value('limit'),
      with: { user_id: owner },
    });
    return query as Compilable<ClaimedDelivery>;
  },
);

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
 * Puts a failed attempt back in the queue for `retryAt`, or fails it for good when `retryAt` is
 * null; `unansweredSince` when the provider never answered it (kept for every later attempt).
 */
export async function markAttemptFailed(
  db: Kysely<Database>,
  id: string,
  failure: { reason: string; retryAt: number | null; now: number; unansweredSince?: number },
) {
  const { reason, retryAt, now, unansweredSince } = failure;
  await db
    .updateTable('deliveries')
    .set({
      status: retryAt === null ? 'failed' : 'queued',
      next_attempt_at: retryAt ?? now,
      claimed_until: null,
      last_error: reason.slice(0, 500),
      ...(unansweredSince === undefined ? {} : { unanswered_since: unansweredSince }),
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'sending')
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
