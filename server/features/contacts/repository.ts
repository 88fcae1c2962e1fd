import type { Insertable, Transaction } from 'kysely';
import { REINVITE_AFTER_MS } from '../../../common/constants.js';
import type { Dialect } from '../../db/index.js';
import type { Contact, ContactsTable, Database, Db } from '../../db/schema.js';

/** A contact as the API shows it. */
export interface ContactView {
  id: string;
  name: string;
  phone_number: string;
  relationship: string;
  /** Whether alerts go to this contact on the current plan (the first `contact_limit` of the list). */
  alerted: boolean;
  /** Where their agreement stands: invited by SMS, confirmed (replied YES), opted out (STOP), or none yet. */
  state: ContactState;
  /** While invited: from when the invitation may be asked for again (ISO 8601). */
  invite_again_at: string | null;
}

export type ContactState = 'added' | 'invited' | 'confirmed' | 'opted_out';

/** A contact's state: opted out (from all of Alerta) above all, then confirmed, then invited. */
export const contactState = (contact: Pick<Contact, 'invited_at' | 'confirmed_at'>, optedOut: boolean): ContactState =>
  optedOut
    ? 'opted_out'
    : contact.confirmed_at !== null
      ? 'confirmed'
      : contact.invited_at !== null
        ? 'invited'
        : 'added';

/** The public shape of a stored contact; `alerted` unless the plan's limit leaves it out. */
export const toView = (
  contact: Pick<Contact, 'id' | 'name' | 'phone_number' | 'relationship' | 'invited_at' | 'confirmed_at'>,
  alerted = true,
  optedOut = false,
): ContactView => {
  const state = contactState(contact, optedOut);
  return {
    id: contact.id,
    name: contact.name,
    phone_number: contact.phone_number,
    relationship: contact.relationship,
    alerted,
    state,
    invite_again_at:
      state === 'invited' ? new Date(Number(contact.invited_at) + REINVITE_AFTER_MS).toISOString() : null,
  };
};

/** The user's contacts in alerting order: those chosen to stay alerted first, then the order they were added. */
export function listContacts(db: Db, userId: string): Promise<Contact[]> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('priority', 'asc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/**
 * The contacts an alert goes to: the first `limit` in alerting order. After a move to a plan
 * with a lower limit the others are kept, not deleted, and not alerted.
 */
export async function alertedContacts(db: Db, userId: string, limit: number): Promise<Contact[]> {
  return (await listContacts(db, userId)).slice(0, limit);
}

/**
 * Puts one of the user's contacts first in alerting order, so it stays alerted on a plan with
 * a lower limit; false when the user has no contact with that id.
 */
export async function putFirst(db: Db, userId: string, id: string): Promise<boolean> {
  const [first] = await listContacts(db, userId);
  if (!first) return false;
  if (first.id === id) return true;
  const result = await db
    .updateTable('contacts')
    .set({ priority: Number(first.priority) - 1 })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Locks the user's row until the transaction ends, so two adds for one user run one
 * after the other and see each other's contacts. Within one process Kysely already runs
 * SQLite transactions one at a time on its single connection; the no-op write takes
 * SQLite's write lock up front (BEGIN IMMEDIATE semantics) so another process sharing
 * the file waits too instead of failing at commit.
 */
export async function lockUser(trx: Transaction<Database>, dialect: Dialect, userId: string): Promise<void> {
  if (dialect === 'postgres') {
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().executeTakeFirst();
  } else {
    await trx
      .updateTable('users')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('id', '=', userId)
      .execute();
  }
}

/** Inserts a contact (already validated and normalised). */
export async function insertContact(db: Db, contact: Insertable<ContactsTable>): Promise<void> {
  await db.insertInto('contacts').values(contact).execute();
}

/** Deletes one of the user's contacts; false when the user has no contact with that id. */
export async function deleteContact(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('contacts').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
