import type { Insertable } from 'kysely';
import type { AlertLocation } from '../../../common/sms-text.js';
import type { DailyCheckin, Db } from '../../db/schema.js';
import type { DailyCheckinsTable } from '../../db/schema-daily.js';

/** The owner's daily check-in row, if they ever set one; `lock`ed until the transaction ends (PostgreSQL only). */
export const dailyOf = (db: Db, userId: string, lock = false): Promise<DailyCheckin | undefined> => {
  const query = db.selectFrom('daily_checkins').selectAll().where('user_id', '=', userId);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
};

/**
 * The owner's latest sign of life after `since` besides an "I'm OK": an alert they sent with
 * their proof (pressed, never one the server fired for them), or a check-in they ended.
 * A link alone proves nobody is alive, so alerts without proof do not count.
 */
export async function signOfLifeAfter(db: Db, userId: string, since: number): Promise<number | null> {
  const [alert, checkin] = await Promise.all([
    db
      .selectFrom('alerts')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('user_id', '=', userId)
      .where('proven', '=', 1)
      .where('reason', '=', 'button')
      .where('created_at', '>', since)
      .executeTakeFirst(),
    db
      .selectFrom('checkins')
      .select((eb) => eb.fn.max('ended_at').as('at'))
      .where('user_id', '=', userId)
      .where('status', '=', 'done')
      .where('ended_at', '>', since)
      .executeTakeFirst(),
  ]);
  const times = [alert?.at, checkin?.at].filter((at) => at != null).map(Number);
  return times.length > 0 ? Math.max(...times) : null;
}

/**
 * The owner's last known position: the newest fix sent with their proof, of their proven alerts
 * (pressed with proof, or fired by the server from such a fix) or of their check-ins. A position
 * that came with the link alone may be anyone's, planted to mislead, and is never given as theirs.
 */
export async function lastKnownPosition(db: Db, userId: string): Promise<AlertLocation | null> {
  const [alert, checkin] = await Promise.all([
    db
      .selectFrom('alerts')
      .select(['latitude', 'longitude', 'accuracy', 'captured_at'])
      .where('user_id', '=', userId)
      .where('proven', '=', 1)
      .where('latitude', 'is not', null)
      .where('captured_at', 'is not', null)
      .orderBy('captured_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('checkins')
      .select(['latitude', 'longitude', 'accuracy', 'captured_at'])
      .where('user_id', '=', userId)
      .where('fix_proven', '=', 1)
      .where('latitude', 'is not', null)
      .where('captured_at', 'is not', null)
      .orderBy('captured_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  const newest = [alert, checkin]
    .filter((row) => row != null)
    .sort((a, b) => Number(b.captured_at) - Number(a.captured_at))[0];
  if (!newest) return null;
  return {
    latitude: Number(newest.latitude),
    longitude: Number(newest.longitude),
    accuracy: Number(newest.accuracy ?? 0),
    captured_at: Number(newest.captured_at),
  };
}

/** The schedule's columns a save writes, whether the row is new or not. */
export type ScheduleFields = Omit<
  Insertable<DailyCheckinsTable>,
  'user_id' | 'missed_due_at' | 'alert_id' | 'created_at'
>;

/** Stores the owner's schedule: a new row, or the given columns of theirs. */
export async function saveSchedule(db: Db, userId: string, fields: ScheduleFields, now: number): Promise<void> {
  await db
    .insertInto('daily_checkins')
    .values({ ...fields, user_id: userId, missed_due_at: null, alert_id: null, created_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(fields))
    .execute();
}

/** Spends the reminder's link if it is still live; false when it was not (used, replaced, expired). */
export async function spendLink(db: Db, userId: string, linkHash: string, now: number): Promise<boolean> {
  const spent = await db
    .updateTable('daily_checkins')
    .set({ link_hash: null, link_expires_at: null })
    .where('user_id', '=', userId)
    .where('link_hash', '=', linkHash)
    .where('link_expires_at', '>', now)
    .executeTakeFirst();
  return Number(spent.numUpdatedRows) === 1;
}

/** A sign of life recorded: the schedule's new anchor, last sign and due time, the reminder's link spent. */
export async function recordSign(
  db: Db,
  userId: string,
  sign: { anchor: number; lastOk: number; next: number | null; now: number },
): Promise<void> {
  await db
    .updateTable('daily_checkins')
    .set({
      anchor_at: sign.anchor,
      last_ok_at: sign.lastOk,
      next_due_at: sign.next,
      link_hash: null,
      link_expires_at: null,
      updated_at: sign.now,
    })
    .where('user_id', '=', userId)
    .execute();
}

/** Marks the due time `dueAt` reminded; false when it was already, or is no longer the due time. */
export async function markReminded(db: Db, userId: string, dueAt: number): Promise<boolean> {
  const marked = await db
    .updateTable('daily_checkins')
    .set({ reminded_due_at: dueAt })
    .where('user_id', '=', userId)
    .where('next_due_at', '=', dueAt)
    .where((eb) => eb.or([eb('reminded_due_at', 'is', null), eb('reminded_due_at', '!=', dueAt)]))
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

/** Moves the schedule past the due time `dueAt` to `next` with nothing sent; false when it had moved already. */
export async function skipDue(
  db: Db,
  userId: string,
  skip: { dueAt: number; next: number; now: number },
): Promise<boolean> {
  const moved = await db
    .updateTable('daily_checkins')
    .set({
      next_due_at: skip.next,
      reminded_due_at: null,
      link_hash: null,
      link_expires_at: null,
      updated_at: skip.now,
    })
    .where('user_id', '=', userId)
    .where('next_due_at', '=', skip.dueAt)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/**
 * Records the missed due time `missed` and the alert it raised, the schedule going on from it to
 * `next`, only while the row is as read (`row`: enabled, the same anchor and due time); false
 * when the owner checked in or changed the schedule first.
 */
export async function markMissed(
  db: Db,
  row: Pick<DailyCheckin, 'user_id' | 'anchor_at' | 'next_due_at'>,
  missed: { missed: number; next: number; alertId: string; now: number },
): Promise<boolean> {
  const moved = await db
    .updateTable('daily_checkins')
    .set({
      anchor_at: missed.missed,
      next_due_at: missed.next,
      missed_due_at: missed.missed,
      alert_id: missed.alertId,
      link_hash: null,
      link_expires_at: null,
      updated_at: missed.now,
    })
    .where('user_id', '=', row.user_id)
    .where('enabled', '=', 1)
    .where('anchor_at', '=', Number(row.anchor_at))
    .where('next_due_at', '=', Number(row.next_due_at))
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** The reminder's one-click link, stored as its hash, live until `expiresAt`. */
export async function setReminderLink(db: Db, userId: string, linkHash: string, expiresAt: number): Promise<void> {
  await db
    .updateTable('daily_checkins')
    .set({ link_hash: linkHash, link_expires_at: expiresAt })
    .where('user_id', '=', userId)
    .execute();
}

/** Whose schedule a reminder's link (by its hash) is, with until when it is live. */
export function linkHolder(db: Db, linkHash: string) {
  return db
    .selectFrom('daily_checkins')
    .select(['user_id', 'link_expires_at'])
    .where('link_hash', '=', linkHash)
    .executeTakeFirst();
}
