import type { Expression, Insertable, Updateable } from 'kysely';
import { compiledInsert, compiledOnce, dialectOf } from '../../db/compiled-once.js';
import type {
  CheckoutSessionsTable,
  Db,
  Subscription,
  SubscriptionsTable,
  UsageRecordsTable,
} from '../../db/schema.js';

type CheckoutStatus = CheckoutSessionsTable['status'];

// Subscriptions.

/** The user's subscriptions, newest first. */
export function userSubscriptions(db: Db, userId: string): Promise<Subscription[]> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** The user's subscriptions not yet cancelled. */
export function liveSubscriptions(db: Db, userId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'provider', 'provider_subscription_id'])
    .where('user_id', '=', userId)
    .where('status', '!=', 'canceled')
    .execute();
}

/** Our row of a provider's subscription, if any. */
export function subscriptionByProviderId(db: Db, providerSubscriptionId: string): Promise<Subscription | undefined> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .executeTakeFirst();
}

/** The newest customer id the user has at `provider`, if any. */
export async function latestCustomerId(db: Db, userId: string, provider: string): Promise<string | null> {
  const row = await db
    .selectFrom('subscriptions')
    .select('provider_customer_id')
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .where('provider_customer_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.provider_customer_id ?? null;
}

/** The user one of whose subscriptions belongs to the provider's `customerId`, if any. */
export async function userOfCustomer(db: Db, customerId: string): Promise<string | null> {
  const row = await db
    .selectFrom('subscriptions')
    .select('user_id')
    .where('provider_customer_id', '=', customerId)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

export async function insertSubscription(db: Db, row: Insertable<SubscriptionsTable>): Promise<void> {
  await db.insertInto('subscriptions').values(row).execute();
}

export async function updateSubscription(db: Db, id: string, changes: Updateable<SubscriptionsTable>): Promise<void> {
  await db.updateTable('subscriptions').set(changes).where('id', '=', id).execute();
}

// Users: what billing reads and writes of them.

/** When the user's trial started (null: never), or undefined when there is no such user. */
export async function trialUsedAt(db: Db, userId: string): Promise<number | null | undefined> {
  const row = await db.selectFrom('users').select('trial_used_at').where('id', '=', userId).executeTakeFirst();
  return row?.trial_used_at;
}

/** Records the trial as used from `at`, unless it already was. */
export async function markTrialUsed(db: Db, userId: string, at: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ trial_used_at: at })
    .where('id', '=', userId)
    .where('trial_used_at', 'is', null)
    .execute();
}

/** Gives the user `token` unless they have one. */
export async function setTokenIfMissing(db: Db, userId: string, token: string): Promise<void> {
  await db.updateTable('users').set({ token }).where('id', '=', userId).where('token', 'is', null).execute();
}

// Checkouts.

export async function insertCheckout(db: Db, row: Insertable<CheckoutSessionsTable>): Promise<void> {
  await db.insertInto('checkout_sessions').values(row).execute();
}

export function findCheckout(db: Db, id: string, provider?: string) {
  let query = db.selectFrom('checkout_sessions').selectAll().where('id', '=', id);
  if (provider) query = query.where('provider', '=', provider);
  return query.executeTakeFirst();
}

export async function setCheckoutProviderSession(db: Db, id: string, providerSessionId: string): Promise<void> {
  await db
    .updateTable('checkout_sessions')
    .set({ provider_session_id: providerSessionId })
    .where('id', '=', id)
    .execute();
}

/** Sets the checkout's status (only from `from` when given); true when it changed. */
export async function setCheckoutStatus(db: Db, id: string, status: CheckoutStatus, from?: CheckoutStatus) {
  let query = db.updateTable('checkout_sessions').set({ status }).where('id', '=', id);
  if (from) query = query.where('status', '=', from);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// Provider events.

/** Records a provider event as handled; false when it already was. */
export async function recordEvent(db: Db, id: string, provider: string, at: number): Promise<boolean> {
  const result = await db
    .insertInto('processed_events')
    .values({ id, provider, received_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

// SMS usage.

/**
 * The user's first real alert: its SMS are not billed (one step of alerts_user_mode_created_idx).
 * `userId` may be a column of an outer query.
 */
export const firstRealAlert = (db: Db, userId: string | Expression<string>) =>
  db
    .selectFrom('alerts')
    .select('id')
    .where('user_id', '=', userId)
    .where('mode', '=', 'real')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1);

/** A usage row to write: `billable` is decided from its alert (`usageInsert`). */
export type NewUsage = Omit<Insertable<UsageRecordsTable>, 'billable'> & { alert_id: string };

/** `firstRealAlert` of one user, built once. */
const firstRealAlertOf = compiledOnce<{ userId: string }, { id: string }>((db, value) =>
  firstRealAlert(db, value('userId')),
);

/**
 * The first real alert of each of `userIds` that has one, by user: one read each, of a statement
 * built once (a batch of sends has a few users; building the read for their list took as long).
 */
export async function firstRealAlerts(db: Db, userIds: string[]): Promise<Map<string, string>> {
  const firsts = new Map<string, string>();
  const dialect = dialectOf(db);
  for (const userId of userIds) {
    const [first] = await firstRealAlertOf(db, dialect, { userId });
    if (first) firsts.set(userId, first.id);
  }
  return firsts;
}

/** Usage rows, each unless its delivery has one, answering those written (built once per shape). */
const usageRowsInsert = compiledInsert('usage_records', (query) =>
  query.onConflict((oc) => oc.column('delivery_id').doNothing()).returning(['delivery_id', 'billable', 'created_at']),
);

/**
 * Inserts usage rows, each unless its delivery has one, the SMS of the user's first real alert
 * (`firsts`, from `firstRealAlerts`) not billable; it answers the rows written. `rows` is not
 * empty. The first real alert is read once per user, not once per row: repeated in each row,
 * that read would cost a batch as many lookups as it has rows.
 */
export function usageInsert(db: Db, rows: NewUsage[], firsts: Map<string, string>) {
  return usageRowsInsert(
    db,
    rows.map(({ alert_id, ...row }) => ({ ...row, billable: firsts.get(row.user_id) === alert_id ? 0 : 1 })),
  );
}

/** Billable usage not yet reported, oldest first (at most 500): all, one delivery's, or one user's. */
export function unreportedUsage(db: Db, filter: { deliveryId?: string; userId?: string } = {}) {
  let query = db
    .selectFrom('usage_records')
    .select(['id', 'user_id', 'delivery_id', 'created_at', 'parts'])
    .where('billable', '=', 1)
    .where('reported_at', 'is', null)
    .orderBy('created_at', 'asc')
    .limit(500);
  if (filter.deliveryId) query = query.where('delivery_id', '=', filter.deliveryId);
  if (filter.userId) query = query.where('user_id', '=', filter.userId);
  return query.execute();
}

export async function markUsageReported(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('usage_records').set({ reported_at: at }).where('id', '=', id).execute();
}

/** Each of the user's SMS since `since`: whether it was billable, and its SMS parts. */
export async function usageSince(
  db: Db,
  userId: string,
  since: number,
): Promise<{ billable: boolean; parts: number }[]> {
  const rows = await db
    .selectFrom('usage_records')
    .select(['billable', 'parts'])
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .execute();
  return rows.map((row) => ({ billable: row.billable === 1, parts: Number(row.parts) }));
}
