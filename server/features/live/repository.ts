import type { Kysely } from 'kysely';
import type { Alert, Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { forgetPositionsBefore, touchAlert } from '../alerts/repository.js';

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

/** Stores a position (a replay of the same fix is stored once) and stamps the alert's last update. */
export async function addPosition(db: Kysely<Database>, alertId: string, position: Position, now: number) {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('alert_locations')
      .values({ id: newId(), alert_id: alertId, ...position, created_at: now })
      .onConflict((oc) => oc.columns(['alert_id', 'captured_at']).doNothing())
      .execute();
    await touchAlert(trx, alertId, now);
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
  return db.transaction().execute(async (trx) => {
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
  const alerts = await forgetPositionsBefore(db, cutoff);
  return Number(positions.numDeletedRows) + Number(responders.numDeletedRows) + alerts;
}
