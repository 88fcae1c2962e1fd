import type { AlertLocation } from '../../../common/sms-text.js';
import type { DailyCheckin, Db } from '../../db/schema.js';

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
