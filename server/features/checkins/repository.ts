import { sql } from 'kysely';
import { CHECKIN_WRONG_PINS } from '../../../common/constants.js';
import type { Checkin, Db } from '../../db/schema.js';
import type { CheckinsTable } from '../../db/schema-checkins.js';
import { newId } from '../../lib/ids.js';

/** A check-in that can still end, move or fire. */
export const ACTIVE = ['running', 'overdue'] as const;
export const isActive = (checkin: Checkin) => (ACTIVE as readonly string[]).includes(checkin.status);

export async function insertCheckin(db: Db, row: CheckinsTable): Promise<void> {
  await db.insertInto('checkins').values(row).execute();
}

export const checkinByKey = (db: Db, userId: string, key: string): Promise<Checkin | undefined> =>
  db
    .selectFrom('checkins')
    .selectAll()
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();

export const checkinById = (db: Db, id: string): Promise<Checkin | undefined> =>
  db.selectFrom('checkins').selectAll().where('id', '=', id).executeTakeFirst();

export const checkinOfUser = (db: Db, userId: string, id: string): Promise<Checkin | undefined> =>
  db.selectFrom('checkins').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();

/** The owner's newest check-in that is active, or ended after `endedSince`. */
export const currentCheckin = (db: Db, userId: string, endedSince: number): Promise<Checkin | undefined> =>
  db
    .selectFrom('checkins')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('status', 'in', ACTIVE), eb('ended_at', '>=', endedSince)]))
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();

/** Changes an active check-in; false when it had already ended or fired (the other side won). */
export async function updateActive(db: Db, id: string, set: Partial<CheckinsTable>): Promise<boolean> {
  const result = await db
    .updateTable('checkins')
    .set(set)
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Ends the owner's active check-ins that were started with the link alone (`done`, as "I'm
 * safe" would): the owner's own start replaces them. Their ids, for their jobs.
 */
export async function endLinkOnly(db: Db, userId: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('checkins')
    .set({ status: 'done', ended_at: now })
    .where('user_id', '=', userId)
    .where('status', 'in', ACTIVE)
    .where('proven', '=', 0)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Counts a wrong PIN; with `fires` (the owner's fifth within the hour) at least CHECKIN_WRONG_PINS,
 * so its job fires it. The count after it, or null when the check-in is no longer active.
 */
export async function countWrongPin(db: Db, id: string, fires: boolean): Promise<number | null> {
  const counted = sql<number>`wrong_pins + 1`;
  const row = await db
    .updateTable('checkins')
    .set({
      wrong_pins: fires
        ? sql<number>`case when ${counted} > ${CHECKIN_WRONG_PINS} then ${counted} else ${CHECKIN_WRONG_PINS} end`
        : counted,
    })
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .returning('wrong_pins')
    .executeTakeFirst();
  return row ? Number(row.wrong_pins) : null;
}

/** A running check-in past its due time becomes overdue; false when it was not running (ended, moved). */
export async function markOverdue(db: Db, id: string): Promise<boolean> {
  const moved = await db
    .updateTable('checkins')
    .set({ status: 'overdue' })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Deletes the device's subscriptions to any other endpoint: one subscription per device key. */
export async function dropDeviceSubscriptions(db: Db, deviceKeyId: string, endpoint: string): Promise<void> {
  await db
    .deleteFrom('push_subscriptions')
    .where('device_key_id', '=', deviceKeyId)
    .where('endpoint', '!=', endpoint)
    .execute();
}

/** How many of the owner's subscriptions are to endpoints other than `endpoint`. */
export async function otherSubscriptions(db: Db, userId: string, endpoint: string): Promise<number> {
  const row = await db
    .selectFrom('push_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('endpoint', '!=', endpoint)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Stores a device's subscription; the same endpoint again takes the new keys and device. */
export async function upsertSubscription(
  db: Db,
  subscription: {
    userId: string;
    deviceKeyId: string;
    endpoint: string;
    keys: { p256dh: string; auth: string };
    now: number;
  },
): Promise<void> {
  const { userId, deviceKeyId, endpoint, keys, now } = subscription;
  const device = { p256dh: keys.p256dh, auth: keys.auth, device_key_id: deviceKeyId };
  await db
    .insertInto('push_subscriptions')
    .values({ id: newId(), user_id: userId, endpoint, created_at: now, ...device })
    .onConflict((oc) => oc.columns(['user_id', 'endpoint']).doUpdateSet(device))
    .execute();
}

/** The owner's push subscriptions. */
export function subscriptionsOf(db: Db, userId: string) {
  return db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).execute();
}

/** Deletes a subscription the push service says is gone. */
export async function deleteSubscription(db: Db, id: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
}
