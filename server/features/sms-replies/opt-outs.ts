import { inTransaction } from '../../db/grouped-transactions.js';
import type { Db } from '../../db/schema.js';
import { setOptOutMails } from './opt-out-mail.js';
import { insertOptOut } from './repository.js';

/**
 * Records that `phone` wants nothing from Alerta (its STOP, or the provider's word for it):
 * from any account, as carriers do. The first time, in the same transaction, each owner who has
 * the number as a contact gets an e-mail job (opt-out-mail.ts); saying it again changes nothing
 * and mails no one until a START. True when the number was not opted out before: the caller
 * may kick the job engine after commit.
 */
export async function optOut(db: Db, phone: string, source: 'reply' | 'provider', now: number): Promise<boolean> {
  const record = async (trx: Db) => {
    const first = await insertOptOut(trx, phone, source, now);
    if (first) await setOptOutMails(trx, phone, now);
    return first;
  };
  return inTransaction(db, record);
}
