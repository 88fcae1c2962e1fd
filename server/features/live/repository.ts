import type { Kysely } from 'kysely';
import type { Alert, Database, LiveDatabase, User } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

/** The live feature reads and writes two columns the shared row types leave out. */
export const liveDb = (db: Kysely<Database>) => db as unknown as Kysely<LiveDatabase>;

export type LiveAlert = Alert & { last_update_at: number | null };

export interface Position {
  latitude: number;
  longitude: number;
  accuracy: number;
  captured_at: number;
}

export interface Responder {
  name: string;
  created_at: number;
}

/** A real alert by its public id, with its owner; test alerts have no live page. */
export async function alertByPublicId(
  db: Kysely<Database>,
  publicId: string,
): Promise<{ alert: LiveAlert; owner: User } | undefined> {
  const alert = await liveDb(db)
    .selectFrom('alerts')
    .selectAll()
    .where('public_id', '=', publicId)
    .where('mode', '=', 'real')
    .executeTakeFirst();
  if (!alert) return undefined;
  const owner = await db.selectFrom('users').selectAll().where('id', '=', alert.user_id).executeTakeFirst();
  return owner ? { alert, owner } : undefined;
}

/** One of the owner's alerts by id or public id, with its live columns. */
export function liveAlertOfUser(db: Kysely<Database>, userId: string, id: string): Promise<LiveAlert | undefined> {
  return liveDb(db)
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('id', '=', id), eb('public_id', '=', id)]))
    .executeTakeFirst();
}

/** Stores a position (a replay of the same fix is stored once) and stamps the alert's last update. */
export async function addPosition(db: Kysely<Database>, alertId: string, position: Position, now: number) {
  await liveDb(db)
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto('alert_locations')
        .values({ id: newId(), alert_id: alertId, ...position, created_at: now })
        .onConflict((oc) => oc.columns(['alert_id', 'captured_at']).doNothing())
        .execute();
      await trx.updateTable('alerts').set({ last_update_at: now }).where('id', '=', alertId).execute();
    });
}

/** The alert's positions, newest fix first: the live updates, then the one the alert went out with. */
export async function trailOf(db: Kysely<Database>, alert: Alert, limit: number): Promise<Position[]> {
  const rows = await db
    .selectFrom('alert_locations')
    .select(['latitude', 'longitude', 'accuracy', 'captured_at'])
    .where('alert_id', '=', alert.id)
    .orderBy('captured_at', 'desc')
    .limit(limit)
    .execute();
  const trail: Position[] = rows.map((r) => ({ ...r, captured_at: Number(r.captured_at) }));
  if (trail.length < limit && alert.latitude !== null && alert.longitude !== null) {
    trail.push({
      latitude: alert.latitude,
      longitude: alert.longitude,
      accuracy: alert.accuracy ?? 0,
      captured_at: Number(alert.captured_at ?? alert.created_at),
    });
  }
  return trail;
}

/** Who answered "on my way", first first. */
export async function respondersOf(db: Kysely<Database>, alertId: string): Promise<Responder[]> {
  const rows = await db
    .selectFrom('alert_responders')
    .select(['name', 'created_at'])
    .where('alert_id', '=', alertId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ name: r.name, created_at: Number(r.created_at) }));
}

/** Records a responder, unless the alert already has `max` of them; true when stored. */
export async function addResponder(db: Kysely<Database>, alertId: string, name: string, now: number, max: number) {
  return liveDb(db)
    .transaction()
    .execute(async (trx) => {
      const count = await trx
        .selectFrom('alert_responders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('alert_id', '=', alertId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= max) return false;
      // Not the owner's activity: an answer never keeps the page (and the position) up longer.
      await trx
        .insertInto('alert_responders')
        .values({ id: newId(), alert_id: alertId, name, created_at: now })
        .execute();
      return true;
    });
}

/**
 * Deletes live positions and responders recorded before `cutoff`, and the position an alert
 * went out with when the alert is older; returns how many rows went or lost their position.
 */
export async function purgeLiveHistory(db: Kysely<Database>, cutoff: number): Promise<number> {
  const positions = await db.deleteFrom('alert_locations').where('created_at', '<', cutoff).executeTakeFirst();
  const responders = await db.deleteFrom('alert_responders').where('created_at', '<', cutoff).executeTakeFirst();
  const old = await db
    .selectFrom('alerts')
    .select(['id', 'message'])
    .where('created_at', '<', cutoff)
    .where((eb) => eb.or([eb('latitude', 'is not', null), eb('longitude', 'is not', null)]))
    .limit(1000)
    .execute();
  for (const alert of old) {
    // The SMS text carried the position too: its maps link goes with it.
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('alerts')
        .set({
          latitude: null,
          longitude: null,
          accuracy: null,
          captured_at: null,
          message: withoutPosition(alert.message),
        })
        .where('id', '=', alert.id)
        .execute();
      const bodies = await trx
        .selectFrom('deliveries')
        .select(['id', 'body'])
        .where('alert_id', '=', alert.id)
        .execute();
      for (const d of bodies) {
        await trx
          .updateTable('deliveries')
          .set({ body: withoutPosition(d.body) })
          .where('id', '=', d.id)
          .execute();
      }
    });
  }
  return Number(positions.numDeletedRows) + Number(responders.numDeletedRows) + old.length;
}

/** A text with every coordinate pair ("38.72225,-9.13934") blanked. */
export const withoutPosition = (text: string) => text.replace(/-?\d{1,3}\.\d+,\s?-?\d{1,3}\.\d+/g, '…');
