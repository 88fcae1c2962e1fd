import type { Alert, Db } from '../../db/schema.js';
import { checkinDueOf, lastDailySign } from './repository.js';

/**
 * Since when there has been no sign of the owner, as the SMS of an alarm the server raised says:
 * the last check-in before a missed daily check-in, or the time a missed check-in was due. Null
 * for any other alert, and when it is no longer known (the daily schedule removed, a sign since).
 */
export async function sinceOf(db: Db, alert: Pick<Alert, 'id' | 'user_id' | 'reason' | 'created_at'>) {
  if (alert.reason === 'missed_daily') {
    const last = await lastDailySign(db, alert.user_id);
    return last !== null && last <= Number(alert.created_at) ? last : null;
  }
  if (alert.reason === 'missed_checkin') {
    return checkinDueOf(db, alert.id);
  }
  return null;
}
