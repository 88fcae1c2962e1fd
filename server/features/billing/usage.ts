import type { Kysely } from 'kysely';
import type { Database, Db } from '../../db/schema.js';
import { orderedId } from '../../lib/ids.js';
import type { PaymentsPort } from '../../providers/payments/port.js';
import {
  firstRealAlerts,
  latestCustomerId,
  markUsageReported,
  type NewUsage,
  unreportedUsage,
  usageInsert,
} from './repository.js';

export interface SmsUsage {
  userId: string;
  deliveryId: string;
  alertId: string;
  /** SMS parts the message was sent as (what the provider bills): 1 when not given. */
  parts?: number;
  now: number;
}

/**
 * Records one sent SMS of `parts` SMS parts (each part is billed) for billing, once per
 * delivery (a retry or a replayed call records nothing more). SMS of the account's first real alert are recorded as not
 * billable. Returns true when a row was written. With `payments`, a billable row is
 * reported to the provider's meter at once; otherwise (or when that fails) the
 * periodic `reportPendingUsage` reports it.
 */
export async function recordSmsUsage(db: Kysely<Database>, usage: SmsUsage, payments?: PaymentsPort): Promise<boolean> {
  const [written] = await insertSmsUsage(db, [usage]);
  if (written?.billable && payments) await reportPendingUsage(db, payments, usage.now, usage.deliveryId).catch(() => 0);
  return written !== undefined;
}

/**
 * Writes the usage rows of several sent SMS (the dispatcher's sends that finished together) in
 * one statement, after one read of their users' first real alerts, each once per delivery,
 * without reporting them: call it inside the transaction that marks them sent, and
 * `reportSmsUsage` with its answer after commit. Returns the rows written.
 */
export async function insertSmsUsage(db: Db, usages: SmsUsage[]): Promise<WrittenUsage[]> {
  if (usages.length === 0) return [];
  const firsts = await firstRealAlerts(db, [...new Set(usages.map((usage) => usage.userId))]);
  return writtenUsage(await usageInsert(db, usageRows(usages), firsts));
}

/** A usage row as written: whether it is billed, and when. */
export interface WrittenUsage {
  deliveryId: string;
  billable: boolean;
  now: number;
}

/** The usage rows of sent SMS, for `usageInsert`. */
export const usageRows = (usages: SmsUsage[]): NewUsage[] =>
  usages.map((usage) => ({
    id: orderedId(),
    user_id: usage.userId,
    delivery_id: usage.deliveryId,
    alert_id: usage.alertId,
    parts: Math.max(1, usage.parts ?? 1),
    reported_at: null,
    created_at: usage.now,
  }));

/** What `usageInsert` answered, as `reportSmsUsage` takes it (PostgreSQL hands big integers over as text). */
export const writtenUsage = (rows: { delivery_id: string; billable: number; created_at: number }[]): WrittenUsage[] =>
  rows.map((row) => ({
    deliveryId: row.delivery_id,
    billable: Number(row.billable) === 1,
    now: Number(row.created_at),
  }));

/** Reports the billable rows `insertSmsUsage` wrote to the provider's meter, after their commit. */
export async function reportSmsUsage(db: Db, written: WrittenUsage[], payments?: PaymentsPort): Promise<void> {
  if (!payments) return;
  for (const row of written) {
    if (row.billable) await reportPendingUsage(db, payments, row.now, row.deliveryId).catch(() => 0);
  }
}

/**
 * Reports billable usage rows not yet reported to the provider's meter (all of them, the
 * one of `deliveryId`, or those of `userId`) and stamps them. The meter event is keyed by the delivery,
 * so reporting a row again after a crash never bills twice. Rows of users with no
 * customer at the provider stay pending; on the simulated adapter the row is the record.
 * Returns how many rows were reported. The recurring `sms-usage-report` job catches up with it.
 */
export async function reportPendingUsage(
  db: Kysely<Database>,
  payments: PaymentsPort,
  now: number,
  deliveryId?: string,
  userId?: string,
): Promise<number> {
  if (payments.name === 'simulated') return 0;
  let reported = 0;
  for (const row of await unreportedUsage(db, { deliveryId, userId })) {
    const customerId = await latestCustomerId(db, row.user_id, payments.name);
    if (!customerId) continue;
    const sent = await payments.reportUsage({
      deliveryId: row.delivery_id,
      customerId,
      at: row.created_at,
      parts: row.parts,
    });
    if (!sent) break;
    await markUsageReported(db, row.id, now);
    reported += 1;
  }
  return reported;
}
