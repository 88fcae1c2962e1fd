import { sql } from 'kysely';
import { inTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Db } from '../../db/schema.js';
import { setOptOutMails } from './opt-out-mail.js';

/**
 * Records that `phone` wants nothing from Alerta (its STOP, or the provider's word for it):
 * from any account, as carriers do. The first time, in the same transaction, each owner who has
 * the number as a contact gets an e-mail job (opt-out-mail.ts); saying it again changes nothing
 * and mails no one until a START. True when the number was not opted out before: the caller
 * may kick the job engine after commit.
 */
export async function optOut(db: Db, phone: string, source: 'reply' | 'provider', now: number): Promise<boolean> {
  const record = async (trx: Db) => {
    const inserted = await trx
      .insertInto('sms_opt_outs')
      .values({ phone_number: phone, source, created_at: now })
      .onConflict((oc) => oc.column('phone_number').doNothing())
      .returning('phone_number')
      .executeTakeFirst();
    if (inserted) await setOptOutMails(trx, phone, now);
    return inserted !== undefined;
  };
  return inTransaction(db, record);
}

/** START: the number may receive Alerta's SMS again. */
export async function optIn(db: Db, phone: string): Promise<void> {
  await db.deleteFrom('sms_opt_outs').where('phone_number', '=', phone).execute();
}

/** Which of `phones` opted out. */
export async function optedOutAmong(db: Db, phones: string[]): Promise<Set<string>> {
  const unique = [...new Set(phones)];
  if (unique.length === 0) return new Set();
  const rows = await db.selectFrom('sms_opt_outs').select('phone_number').where('phone_number', 'in', unique).execute();
  return new Set(rows.map((row) => row.phone_number));
}

/**
 * Holds `phone`'s lock until the transaction ends, so two writers counting what went to one
 * number count one after the other: PostgreSQL's transaction lock per number, the same one the
 * SMS budgets take; SQLite's single writer already serialises them.
 */
export async function lockNumber(db: Db, dialect: Dialect, phone: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`sms:${phone}`}))`.execute(db);
}
