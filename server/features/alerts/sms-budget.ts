import { type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { MINUTE } from '../../lib/time.js';

/**
 * How many SMS one number may receive. Counted from the deliveries table (alerts, tests and
 * all-clears alike), so neither a new link, a second client address nor an all-clear starts
 * a fresh count; a retried delivery is one SMS.
 */
export const SMS_BUDGET = {
  /** From one account to one number. */
  perAccountNumber: { max: 10, windowMs: 10 * MINUTE },
  /** To one number from all accounts together (several accounts cannot add up). */
  perNumber: { max: 30, windowMs: 60 * MINUTE },
} as const;

/** The reason kept on a withheld delivery, shown in the owner's history. */
export const WITHHELD_REASON =
  'Not sent: this number already received the most SMS allowed in a short time. The contacts were alerted recently and can follow the live link.';

type Db = Kysely<Database> | Transaction<Database>;

/** SMS counted for each number since `since`, of one account or of all. */
async function sentCounts(db: Db, phones: string[], since: number, userId?: string): Promise<Map<string, number>> {
  let query = db
    .selectFrom('deliveries')
    .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
    .select(['deliveries.phone_number as phone', (eb) => eb.fn.countAll<number>().as('n')])
    .where('deliveries.phone_number', 'in', phones)
    .where('deliveries.created_at', '>', since)
    .where('deliveries.status', '!=', 'withheld')
    .groupBy('deliveries.phone_number');
  if (userId) query = query.where('alerts.user_id', '=', userId);
  const rows = await query.execute();
  return new Map(rows.map((row) => [row.phone, Number(row.n)]));
}

/**
 * Which of `phones` may get one more SMS from `userId` now. Call inside the transaction
 * that inserts the deliveries: on PostgreSQL it takes a transaction lock per number, so
 * concurrent alerts to one number are counted one after the other (SQLite's single writer
 * already serialises them).
 */
export async function numbersWithinBudget(
  trx: Transaction<Database>,
  dialect: Dialect,
  options: { userId: string; phones: string[]; now: number },
): Promise<Set<string>> {
  const phones = [...new Set(options.phones)].sort();
  if (phones.length === 0) return new Set();
  if (dialect === 'postgres') {
    for (const phone of phones) await sql`select pg_advisory_xact_lock(hashtext(${`sms:${phone}`}))`.execute(trx);
  }
  const { perAccountNumber, perNumber } = SMS_BUDGET;
  const mine = await sentCounts(trx, phones, options.now - perAccountNumber.windowMs, options.userId);
  const all = await sentCounts(trx, phones, options.now - perNumber.windowMs);
  return new Set(
    phones.filter((phone) => (mine.get(phone) ?? 0) < perAccountNumber.max && (all.get(phone) ?? 0) < perNumber.max),
  );
}
