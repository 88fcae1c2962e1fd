import { type Kysely, sql } from 'kysely';
import type { Alert, Database } from '../../db/schema.js';
import type { ResponderChannel } from '../../db/schema-live.js';
import { newId, orderedId } from '../../lib/ids.js';

export interface Position {
  latitude: number;
  longitude: number;
  accuracy: number;
  captured_at: number;
}

export interface Responder {
  name: string;
  created_at: number;
  /** Answered as one of the contacts (their link, an SMS reply or the call). */
  contact: boolean;
  /** How a contact answered; null for anyone else with the link. */
  channel: ResponderChannel | null;
}

/** Stores a position; a replay of the same fix is stored once. */
export async function addPosition(db: Kysely<Database>, alertId: string, position: Position, now: number) {
  await db
    .insertInto('alert_locations')
    .values({ id: orderedId(), alert_id: alertId, ...position, created_at: now })
    .onConflict((oc) => oc.columns(['alert_id', 'captured_at']).doNothing())
    .execute();
}

/**
 * When a stored fix was taken, as far as the server can tell: its own time, but never later than
 * it was received. A fix dated ahead (a fast clock, or a link holder's made-up date) counts from
 * its receipt, so no position, however dated, passes for newer than one received after it.
 */
const fixedAt = sql<number>`case when captured_at > created_at then created_at else captured_at end`;

/** The alert's positions, newest fix first: the live updates, then the one the alert went out with. */
export async function trailOf(db: Kysely<Database>, alert: Alert, limit: number): Promise<Position[]> {
  const rows = await db
    .selectFrom('alert_locations')
    .select(['latitude', 'longitude', 'accuracy', fixedAt.as('captured_at')])
    .where('alert_id', '=', alert.id)
    .orderBy(fixedAt, 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
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
    .select(['name', 'created_at', 'delivery_id', 'channel'])
    .where('alert_id', '=', alertId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    created_at: Number(r.created_at),
    contact: r.delivery_id !== null,
    channel: r.channel ?? (r.delivery_id !== null ? 'link' : null),
  }));
}

/** The alert SMS whose live link carried this contact key (stored hashed), if any. */
export function deliveryByContactKey(db: Kysely<Database>, alertId: string, keyHash: string) {
  return db
    .selectFrom('deliveries')
    .select(['id', 'contact_name'])
    .where('alert_id', '=', alertId)
    .where('kind', '=', 'alert')
    .where('contact_key_hash', '=', keyHash)
    .executeTakeFirst();
}

/**
 * Records an answer from someone without a contact key, unless the alert already has `max`
 * of those or `perClient` came from this client (`clientHash`): 'full', 'client_full' or
 * the stored responder. Contacts' answers take no slot.
 */
export async function addStranger(
  db: Kysely<Database>,
  input: { alertId: string; name: string; clientHash: string; now: number; max: number; perClient: number },
): Promise<'full' | 'client_full' | Responder> {
  const { alertId, name, clientHash, now, max, perClient } = input;
  return db.transaction().execute(async (trx) => {
    const counts = await trx
      .selectFrom('alert_responders')
      .select((eb) => [
        eb.fn.countAll<number>().as('all'),
        eb.fn.sum<number>(eb.case().when('client_hash', '=', clientHash).then(1).else(0).end()).as('mine'),
      ])
      .where('alert_id', '=', alertId)
      .where('delivery_id', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(counts.all) >= max) return 'full';
    if (Number(counts.mine ?? 0) >= perClient) return 'client_full';
    // Not the owner's activity: an answer never keeps the page (and the position) up longer.
    await trx
      .insertInto('alert_responders')
      .values({ id: newId(), alert_id: alertId, name, created_at: now, client_hash: clientHash })
      .execute();
    return { name, created_at: now, contact: false, channel: null };
  });
}

/**
 * Records a contact's answer, one per delivery: a second press renames it (and keeps its
 * time and how it first came). `created` is false for such an update.
 */
export async function addContactResponder(
  db: Kysely<Database>,
  input: { alertId: string; deliveryId: string; name: string; now: number; channel: ResponderChannel },
): Promise<{ created: boolean; responder: Responder }> {
  const { alertId, deliveryId, name, now, channel } = input;
  const earlier = await db
    .selectFrom('alert_responders')
    .select('created_at')
    .where('alert_id', '=', alertId)
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
  if (!earlier) {
    const inserted = await db
      .insertInto('alert_responders')
      .values({ id: newId(), alert_id: alertId, name, created_at: now, delivery_id: deliveryId, channel })
      .onConflict((oc) => oc.columns(['alert_id', 'delivery_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
      return { created: true, responder: { name, created_at: now, contact: true, channel } };
    }
  }
  // Answered before (or by a press racing this one): rename.
  const row = await db
    .updateTable('alert_responders')
    .set({ name })
    .where('alert_id', '=', alertId)
    .where('delivery_id', '=', deliveryId)
    .returning(['created_at', 'channel'])
    .executeTakeFirstOrThrow();
  const first = { name, created_at: Number(row.created_at), contact: true, channel: row.channel ?? 'link' };
  return { created: false, responder: first };
}

/** Deletes live positions and responders recorded before `cutoff`; returns how many rows went. */
export async function deleteLiveRowsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const positions = await db.deleteFrom('alert_locations').where('created_at', '<', cutoff).executeTakeFirst();
  const responders = await db.deleteFrom('alert_responders').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(positions.numDeletedRows) + Number(responders.numDeletedRows);
}

/** A contact's own answer on an alert, by the hash of their link's key: when, and through what. */
export function answerByContactKey(db: Kysely<Database>, alertId: string, keyHash: string) {
  return db
    .selectFrom('alert_responders')
    .innerJoin('deliveries', 'deliveries.id', 'alert_responders.delivery_id')
    .select(['alert_responders.created_at', 'alert_responders.channel'])
    .where('alert_responders.alert_id', '=', alertId)
    .where('deliveries.contact_key_hash', '=', keyHash)
    .executeTakeFirst();
}
