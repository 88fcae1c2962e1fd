import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

export interface SmsUsage {
  userId: string;
  deliveryId: string;
  alertId: string;
  now: number;
}

/**
 * Records one sent SMS for billing, once per delivery (a retry or a replayed call
 * records nothing more). SMS of the account's first real alert are recorded as not
 * billable. Returns true when a row was written. Reporting the row to the payment
 * provider is the payment adapter's job.
 */
export async function recordSmsUsage(db: Kysely<Database>, usage: SmsUsage): Promise<boolean> {
  const first = await db
    .selectFrom('alerts')
    .select('id')
    .where('user_id', '=', usage.userId)
    .where('mode', '=', 'real')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
  const result = await db
    .insertInto('usage_records')
    .values({
      id: newId(),
      user_id: usage.userId,
      delivery_id: usage.deliveryId,
      billable: first?.id === usage.alertId ? 0 : 1,
      reported_at: null,
      created_at: usage.now,
    })
    .onConflict((oc) => oc.column('delivery_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
