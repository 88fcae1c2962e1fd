import type { DeviceView } from '../../../common/api/devices.js';
import type { Db } from '../../db/schema.js';
import { iso, isoOrNull } from '../../lib/dates.js';
import { deleteDeviceKey, deviceKeysOf } from './repository.js';

/*
 * Device keys that can be taken back (the keys themselves: owner/proof.ts). A copied key
 * proves the owner wherever it is sent, so each ends with what gave it: the owner removes it from
 * Setup; the login that issued it logs out; and all of them end when the links are replaced, on
 * "this wasn't me", "log out everywhere" and a password reset. Rows are deleted, never marked:
 * what hangs on a key (its push subscription) goes with it.
 */

/** Row ids are UUIDs: anything else names no key (and a NUL would upset PostgreSQL). */
const ROW_ID = /^[\w-]{1,64}$/;

/** The owner's device keys, the most recently used first; `current` marks those `sessionId` issued. */
export async function listDeviceKeys(db: Db, userId: string, sessionId: string): Promise<DeviceView[]> {
  const rows = await deviceKeysOf(db, userId);
  const lastSeen = (row: (typeof rows)[number]) => Number(row.last_used_at ?? row.created_at);
  return rows
    .sort((a, b) => lastSeen(b) - lastSeen(a) || a.id.localeCompare(b.id))
    .map((row) => ({
      id: row.id,
      name: row.name,
      created_at: iso(row.created_at),
      last_used_at: isoOrNull(row.last_used_at),
      current: row.session_id !== null && row.session_id === sessionId,
    }));
}

/** Ends one of the owner's keys; false when `id` names none of theirs. */
export async function removeDeviceKey(db: Db, userId: string, id: string): Promise<boolean> {
  if (!ROW_ID.test(id)) return false;
  return deleteDeviceKey(db, userId, id);
}
