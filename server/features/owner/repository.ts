import type { Db, User } from '../../db/schema.js';

/** The owner of a personal alert token; undefined for an unknown or rotated token. */
export function ownerByToken(db: Db, token: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('token', '=', token).executeTakeFirst();
}
