import type { Db, User } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

/** The owner of a personal alert token; undefined for an unknown or rotated token. */
export function ownerByToken(db: Db, token: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('token', '=', token).executeTakeFirst();
}

/** The device key stored under `keyHash`: its id and the user it was issued to. */
export function deviceKeyByHash(db: Db, keyHash: string): Promise<{ id: string; user_id: string } | undefined> {
  return db.selectFrom('device_keys').select(['id', 'user_id']).where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Stamps a device key's last use. */
export async function stampDeviceKey(db: Db, keyHash: string, now: number): Promise<void> {
  await db.updateTable('device_keys').set({ last_used_at: now }).where('key_hash', '=', keyHash).execute();
}

/** Stores a device key's hash for `userId`, with the login and the device's name it was issued to. */
export async function insertDeviceKey(
  db: Db,
  key: { userId: string; keyHash: string; now: number; to: { sessionId: string; name: string | null } | null },
): Promise<void> {
  await db
    .insertInto('device_keys')
    .values({
      id: newId(),
      user_id: key.userId,
      key_hash: key.keyHash,
      created_at: key.now,
      last_used_at: null,
      name: key.to?.name ?? null,
      session_id: key.to?.sessionId ?? null,
    })
    .execute();
}
