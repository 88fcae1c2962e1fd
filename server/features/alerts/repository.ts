import { type Kysely, sql } from 'kysely';
import { LIVE_PAGE_TTL_MS } from '../../../common/constants.js';
import { compiledInsert, compiledRows } from '../../db/compiled-once.js';
import type { Dialect } from '../../db/index.js';
import type {
  Alert,
  AlertReason,
  Database,
  Db,
  Delivery,
  DeliveryStatus,
  NewAlert,
  NewDelivery,
  User,
} from '../../db/schema.js';
import { enqueueMany, type JobInput, jobRow, jobsInsert } from '../../jobs/index.js';

/** The alert a user already created with this idempotency key, if any. */
export function alertByKey(db: Db, userId: string, key: string): Promise<Alert | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** A real alert by its public id (the live page's link), with its owner; test alerts have none. */
export async function realAlertByPublicId(
  db: Db,
  publicId: string,
): Promise<{ alert: Alert; owner: User } | undefined> {
  const alert = await db
    .selectFrom('alerts')
    .selectAll()
    .where('public_id', '=', publicId)
    .where('mode', '=', 'real')
    .executeTakeFirst();
  if (!alert) return undefined;
  const owner = await db.selectFrom('users').selectAll().where('id', '=', alert.user_id).executeTakeFirst();
  return owner ? { alert, owner } : undefined;
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

/** The alert row and its deliveries, each inserted by a statement built once per shape. */
const alertInsert = compiledInsert('alerts', (query) => query.returningAll());
const deliveriesInsert = compiledInsert('deliveries', (query) => query);

/**
 * PostgreSQL's one statement for an alert, its deliveries and its jobs, built once per shape:
 * the deliveries and the jobs are written in its WITH, which PostgreSQL always runs.
 */
const alertWithAlongside = compiledRows<
  { alert: NewAlert[]; deliveries: NewDelivery[]; jobs: ReturnType<typeof jobRow>[] },
  Alert
>((db, { alert, deliveries, jobs }) => {
  const alongside = [
    ...(deliveries.length > 0 ? [db.insertInto('deliveries').values(deliveries)] : []),
    ...(jobs.length > 0 ? [jobsInsert(db, jobs)] : []),
  ];
  const parts = alongside.map((part, i) => sql`${sql.id(`alongside_${i}`)} as (${part})`);
  const inserted = db.insertInto('alerts').values(alert).returningAll();
  return { compile: () => sql<Alert>`with ${sql.join(parts)} ${inserted}`.compile(db) };
});

/**
 * Writes an alert, its deliveries and the jobs it sets (its SMS, its escalation, the owner's e-mail). The service calls it
 * in the transaction that applied the SMS budgets to them, so all are stored together or not
 * at all. On PostgreSQL (`dialect` given) it is one statement (one round trip): the deliveries
 * and the jobs are written in its WITH, and the deliveries' reference to the alert is checked at
 * the statement's end. Otherwise each is a statement of its own. Each statement is built once
 * per shape (`compiledRows`).
 */
export async function insertAlert(
  db: Db,
  alert: NewAlert,
  deliveries: NewDelivery[],
  also: { dialect?: Dialect; jobs?: JobInput[] } = {},
): Promise<Alert> {
  const { dialect, jobs = [] } = also;
  if (dialect === 'postgres' && (deliveries.length > 0 || jobs.length > 0)) {
    const [row] = await alertWithAlongside(db, { alert: [alert], deliveries, jobs: jobs.map(jobRow) });
    if (!row) throw new Error('the alert was not written');
    return row;
  }
  const [row] = await alertInsert(db, [alert]);
  if (!row) throw new Error('the alert was not written');
  if (deliveries.length > 0) await deliveriesInsert(db, deliveries);
  await enqueueMany(db, jobs);
  return row;
}

/** An alert by its id, whoever's it is (a job names its alert by id). */
export function alertById(db: Db, id: string): Promise<Alert | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The deliveries of some alerts, in no set order: the views list them (views.ts `listed`). */
export function deliveriesOf(db: Db, alertIds: string[]): Promise<Delivery[]> {
  if (alertIds.length === 0) return Promise.resolve([]);
  return (
    db
      .selectFrom('deliveries')
      .selectAll()
      .where('alert_id', 'in', alertIds)
      // The all-clear SMS sent when the owner is safe are not the alert's deliveries.
      .where('kind', '=', 'alert')
      .execute()
  );
}

/** The owner's last `limit` alerts, newest first. */
export function latestAlerts(db: Db, userId: string, limit: number): Promise<Alert[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Records the owner's activity on the live side (a position): the live page stays up a day from it. */
export async function touchAlert(db: Db, alertId: string, now: number): Promise<void> {
  await db.updateTable('alerts').set({ last_update_at: now }).where('id', '=', alertId).execute();
}

/** Resolves the alert unless it already is: one conditional UPDATE, so only the first call counts. */
export async function markResolved(db: Db, alertId: string, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('alerts')
    .set({ resolved_at: now, last_update_at: now })
    .where('id', '=', alertId)
    .where('resolved_at', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Who the alert's own SMS went to, in the order they were queued (one entry per delivery). */
export function alertRecipients(db: Db, alertId: string) {
  return db
    .selectFrom('deliveries')
    .select(['contact_name', 'phone_number'])
    .where('alert_id', '=', alertId)
    .where('kind', '=', 'alert')
    .orderBy('created_at')
    .execute();
}

/**
 * Forgets the position of alerts created before `cutoff`, and the maps link in their SMS
 * texts; returns how many alerts lost theirs (at most 1000 a call).
 */
export async function forgetPositionsBefore(db: Kysely<Database>, cutoff: number): Promise<number> {
  const old = await db
    .selectFrom('alerts')
    .select(['id', 'message'])
    .where('created_at', '<', cutoff)
    .where((eb) => eb.or([eb('latitude', 'is not', null), eb('longitude', 'is not', null)]))
    .limit(1000)
    .execute();
  for (const alert of old) {
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
  return old.length;
}

/** A text with every coordinate pair ("38.72225,-9.13934") blanked. */
export const withoutPosition = (text: string) => text.replace(/-?\d{1,3}\.\d+,\s?-?\d{1,3}\.\d+/g, '…');

/**
 * Which of `phones` the owner's alerts reached by SMS (`deliveries`) or by phone
 * (`escalation_calls`): those queued after `since` and at or before `until`, in one of
 * `statuses`, of proven or link-only alerts, as given.
 */
export async function numbersReached(
  db: Db,
  reach: {
    via: 'deliveries' | 'escalation_calls';
    userId: string;
    phones: string[];
    since?: number;
    until?: number;
    statuses?: DeliveryStatus[];
    proven?: boolean;
  },
): Promise<Set<string>> {
  if (reach.phones.length === 0) return new Set();
  // Both tables name the number, the alert, the status and the time alike.
  let query = db
    .selectFrom(`${reach.via} as r` as 'deliveries as r')
    .innerJoin('alerts as a', 'a.id', 'r.alert_id')
    .select('r.phone_number')
    .distinct()
    .where('a.user_id', '=', reach.userId)
    .where('r.phone_number', 'in', reach.phones);
  if (reach.since !== undefined) query = query.where('r.created_at', '>', reach.since);
  if (reach.until !== undefined) query = query.where('r.created_at', '<=', reach.until);
  if (reach.statuses) query = query.where('r.status', 'in', reach.statuses);
  if (reach.proven !== undefined) query = query.where('a.proven', '=', reach.proven ? 1 : 0);
  const rows = await query.execute();
  return new Set(rows.map((row) => row.phone_number));
}

/**
 * The owner's unresolved real alerts (never a duress alert) changed within the live page's life,
 * the owner's own and the server's first, newest first: at most `most`, or every one of `reason`.
 */
export function openRealAlerts(
  db: Db,
  userId: string,
  now: number,
  which: { most: number } | { reason: AlertReason },
): Promise<Alert[]> {
  let query = db
    .selectFrom('alerts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('mode', '=', 'real')
    .where('reason', '!=', 'duress')
    .where('resolved_at', 'is', null)
    // An active alert had its last change within the live page's life; its start may be older.
    .where((eb) => eb(eb.fn.coalesce('last_update_at', 'created_at'), '>=', now - LIVE_PAGE_TTL_MS))
    // The owner's own and the server's alerts first: no number of alerts sent with the link alone
    // pushes them off the list the owner ends them from.
    .orderBy('proven', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  query = 'most' in which ? query.limit(which.most) : query.where('reason', '=', which.reason);
  return query.execute();
}

/** The owner's last daily check-in (or the schedule's start), if they have a schedule. */
export async function lastDailySign(db: Db, userId: string): Promise<number | null> {
  const row = await db
    .selectFrom('daily_checkins')
    .select(['last_ok_at', 'created_at'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? Number(row.last_ok_at ?? row.created_at) : null;
}

/** When the check-in that fired the alert was due, if it is still known. */
export async function checkinDueOf(db: Db, alertId: string): Promise<number | null> {
  const row = await db.selectFrom('checkins').select('due_at').where('alert_id', '=', alertId).executeTakeFirst();
  return row ? Number(row.due_at) : null;
}
