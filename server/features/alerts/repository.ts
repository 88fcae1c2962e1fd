import { type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Alert, Database, Delivery, DeliveryStatus, User } from '../../db/schema.js';
import { iso, isoOrNull } from '../../lib/dates.js';
import { numbersWithinBudget, WITHHELD_REASON } from './sms-budget.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Statuses as the API shows them: a provider's "undelivered" and an SMS withheld by the budget are shown as failed. */
export type ShownStatus = 'queued' | 'sending' | 'sent' | 'delivered' | 'failed';

export const shownStatus = (status: DeliveryStatus): ShownStatus =>
  status === 'undelivered' || status === 'withheld' ? 'failed' : status;

/** A delivery as the API shows it; `withheld` when the number's SMS budget kept it from being sent. */
const deliveryView = (d: Delivery) => ({
  contact_name: d.contact_name,
  status: shownStatus(d.status),
  ...(d.status === 'withheld' ? { withheld: true } : {}),
});

/** The owner of a personal alert token; undefined for an unknown or rotated token. */
export function ownerByToken(db: Db, token: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('token', '=', token).executeTakeFirst();
}

/** The alert a user already created with this idempotency key, if any. */
export function alertByKey(db: Db, userId: string, key: string): Promise<Alert | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** One of the user's alerts by its id or public id. */
export function alertOfUser(db: Db, userId: string, id: string): Promise<Alert | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('id', '=', id), eb('public_id', '=', id)]))
    .executeTakeFirst();
}

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The hash of the request an alert was created from (null for alerts stored before it was kept). */
export async function requestHashOf(db: Db, alertId: string): Promise<string | null> {
  const row = await db
    .selectFrom('alerts')
    .select(sql<string | null>`request_hash`.as('request_hash'))
    .where('id', '=', alertId)
    .executeTakeFirst();
  return row?.request_hash ?? null;
}

/**
 * Writes an alert and its deliveries in one transaction. With `budget`, deliveries to a
 * number whose SMS budget is spent are stored `withheld` (never sent), counted in the same
 * transaction. When the same idempotency key won a concurrent race, returns that alert
 * instead with `created: false`.
 */
export async function insertAlert(
  db: Kysely<Database>,
  alert: Alert,
  deliveries: Delivery[],
  options: { budget?: { dialect: Dialect; now: number }; requestHash?: string } = {},
): Promise<{ alert: Alert; created: boolean }> {
  try {
    await db.transaction().execute(async (trx) => {
      const { budget } = options;
      let rows = deliveries;
      if (budget && deliveries.length > 0) {
        const allowed = await numbersWithinBudget(trx, budget.dialect, {
          userId: alert.user_id,
          phones: deliveries.map((d) => d.phone_number),
          now: budget.now,
        });
        rows = deliveries.map((d) =>
          allowed.has(d.phone_number) ? d : { ...d, status: 'withheld' as const, last_error: WITHHELD_REASON },
        );
      }
      await trx
        .insertInto('alerts')
        .values(options.requestHash ? ({ ...alert, request_hash: options.requestHash } as Alert) : alert)
        .execute();
      if (rows.length > 0) await trx.insertInto('deliveries').values(rows).execute();
    });
    return { alert, created: true };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await alertByKey(db, alert.user_id, alert.idempotency_key);
    if (!existing) throw error;
    return { alert: existing, created: false };
  }
}

/** The deliveries of some alerts, in a stable order. */
export function deliveriesOf(db: Db, alertIds: string[]): Promise<Delivery[]> {
  if (alertIds.length === 0) return Promise.resolve([]);
  return (
    db
      .selectFrom('deliveries')
      .selectAll()
      .where('alert_id', 'in', alertIds)
      // The all-clear SMS sent when the owner is safe are not the alert's deliveries.
      .where(sql`kind`, '=', 'alert')
      .orderBy('created_at')
      .orderBy('contact_name')
      .orderBy('id')
      .execute()
  );
}

/**
 * The public answer for an alert: `{id, public_id, mode, created_at, recently_alerted,
 * deliveries: [{contact_name, status, withheld?}]}`; `recently_alerted` when the SMS budget
 * withheld at least one SMS (the contacts were alerted a moment ago).
 */
export async function publicAlertView(db: Db, alert: Alert) {
  const deliveries = await deliveriesOf(db, [alert.id]);
  return {
    id: alert.id,
    public_id: alert.public_id,
    mode: alert.mode,
    created_at: iso(alert.created_at),
    recently_alerted: deliveries.some((d) => d.status === 'withheld'),
    deliveries: deliveries.map(deliveryView),
  };
}

/** The owner's alerts, newest first, with location, text and each delivery's status. */
export async function ownerAlerts(db: Db, userId: string, limit: number) {
  const alerts = await db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const deliveries = await deliveriesOf(
    db,
    alerts.map((a) => a.id),
  );
  return alerts.map((alert) => ({
    id: alert.id,
    public_id: alert.public_id,
    mode: alert.mode,
    created_at: iso(alert.created_at),
    location:
      alert.latitude !== null && alert.longitude !== null
        ? {
            latitude: alert.latitude,
            longitude: alert.longitude,
            accuracy: alert.accuracy,
            captured_at: isoOrNull(alert.captured_at),
          }
        : null,
    location_error: alert.location_error,
    message: alert.message,
    deliveries: deliveries
      .filter((d) => d.alert_id === alert.id)
      .map((d) => ({
        ...deliveryView(d),
        phone_number: d.phone_number,
        attempts: d.attempts,
        last_error: d.last_error,
        updated_at: iso(d.updated_at),
      })),
  }));
}
