import type { Alert, Db } from '../../db/schema.js';

/**
 * Since when there has been no sign of the owner, as the SMS of an alarm the server raised says:
 * the last check-in before a missed daily check-in, or the time a missed check-in was due. Null
 * for any other alert, and when it is no longer known (the daily schedule removed, a sign since).
 */
export async function sinceOf(db: Db, alert: Pick<Alert, 'id' | 'user_id' | 'reason' | 'created_at'>) {
  if (alert.reason === 'missed_daily') {
    const row = await db
      .selectFrom('daily_checkins')
      .select(['last_ok_at', 'created_at'])
      .where('user_id', '=', alert.user_id)
      .executeTakeFirst();
    const last = row ? Number(row.last_ok_at ?? row.created_at) : null;
    return last !== null && last <= Number(alert.created_at) ? last : null;
  }
  if (alert.reason === 'missed_checkin') {
    const row = await db.selectFrom('checkins').select('due_at').where('alert_id', '=', alert.id).executeTakeFirst();
    return row ? Number(row.due_at) : null;
  }
  return null;
}
