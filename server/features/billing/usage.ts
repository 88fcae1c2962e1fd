import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { PaymentsPort } from '../../providers/payments/port.js';

export interface SmsUsage {
  userId: string;
  deliveryId: string;
  alertId: string;
  now: number;
}

/**
 * Records one sent SMS for billing, once per delivery (a retry or a replayed call
 * records nothing more). SMS of the account's first real alert are recorded as not
 * billable. Returns true when a row was written. With `payments`, a billable row is
 * reported to the provider's meter at once; otherwise (or when that fails) the
 * periodic `reportPendingUsage` reports it.
 */
export async function recordSmsUsage(db: Kysely<Database>, usage: SmsUsage, payments?: PaymentsPort): Promise<boolean> {
  const first = await db
    .selectFrom('alerts')
    .select('id')
    .where('user_id', '=', usage.userId)
    .where('mode', '=', 'real')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
  const billable = first?.id === usage.alertId ? 0 : 1;
  const result = await db
    .insertInto('usage_records')
    .values({
      id: newId(),
      user_id: usage.userId,
      delivery_id: usage.deliveryId,
      billable,
      reported_at: null,
      created_at: usage.now,
    })
    .onConflict((oc) => oc.column('delivery_id').doNothing())
    .executeTakeFirst();
  const written = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  if (written && billable && payments) {
    await reportPendingUsage(db, payments, usage.now, usage.deliveryId).catch(() => 0);
  }
  return written;
}

/**
 * Reports billable usage rows not yet reported to the provider's meter (all of them, the
 * one of `deliveryId`, or those of `userId`) and stamps them. The meter event is keyed by the delivery,
 * so reporting a row again after a crash never bills twice. Rows of users with no
 * customer at the provider stay pending; on the simulated adapter the row is the record.
 * Returns how many rows were reported.
 */
export async function reportPendingUsage(
  db: Kysely<Database>,
  payments: PaymentsPort,
  now: number,
  deliveryId?: string,
  userId?: string,
): Promise<number> {
  if (payments.name === 'simulated') return 0;
  let query = db
    .selectFrom('usage_records')
    .select(['id', 'user_id', 'delivery_id', 'created_at'])
    .where('billable', '=', 1)
    .where('reported_at', 'is', null)
    .orderBy('created_at', 'asc')
    .limit(500);
  if (deliveryId) query = query.where('delivery_id', '=', deliveryId);
  if (userId) query = query.where('user_id', '=', userId);
  let reported = 0;
  for (const row of await query.execute()) {
    const customer = await db
      .selectFrom('subscriptions')
      .select('provider_customer_id')
      .where('user_id', '=', row.user_id)
      .where('provider', '=', payments.name)
      .where('provider_customer_id', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!customer?.provider_customer_id) continue;
    const sent = await payments.reportUsage({
      deliveryId: row.delivery_id,
      customerId: customer.provider_customer_id,
      at: row.created_at,
    });
    if (!sent) break;
    await db.updateTable('usage_records').set({ reported_at: now }).where('id', '=', row.id).execute();
    reported += 1;
  }
  return reported;
}
