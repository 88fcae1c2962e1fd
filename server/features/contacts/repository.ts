import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Contact, Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A contact as the API shows it. */
export interface ContactView {
  id: string;
  name: string;
  phone_number: string;
  relationship: string;
}

/** The public shape of a stored contact. */
export const toView = (contact: Pick<Contact, 'id' | 'name' | 'phone_number' | 'relationship'>): ContactView => ({
  id: contact.id,
  name: contact.name,
  phone_number: contact.phone_number,
  relationship: contact.relationship,
});

/** The user's contacts, oldest first (the order they were added). */
export function listContacts(db: Db, userId: string): Promise<Contact[]> {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
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
export async function insertContact(db: Db, contact: Contact): Promise<void> {
  await db.insertInto('contacts').values(contact).execute();
}

/** Deletes one of the user's contacts; false when the user has no contact with that id. */
export async function deleteContact(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('contacts').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** True when `error` is the database refusing a duplicate (user, phone number). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
