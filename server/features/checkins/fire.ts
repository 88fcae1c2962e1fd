import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { checkinMessage } from '../../../common/sms-checkin-text.js';
import type { Alert, Checkin, Database } from '../../db/schema.js';
import { findById } from '../accounts/index.js';
import { type ServerAlertDeps, sendServerAlert } from '../alerts/index.js';
import { subscriptionProfile } from '../billing/index.js';
import { ownerLanguage } from '../owner/index.js';

export type FireDeps = ServerAlertDeps;

/**
 * Sends the real alert of a check-in, exactly as a pressed one goes (live links per contact,
 * budgets, history), with the check-in's SMS: `missed_checkin` names its due time, note and
 * last position; `duress` warns the contacts. One per check-in and reason (the alert's
 * idempotency key). `mark` commits with the alert (the check-in marked fired) or throws
 * `AlertMoved` to send nothing. The owner is mailed about a missed check-in, never about a
 * duress alert (someone may be watching their mail). A check-in the owner started with their
 * proof, and any duress alert (the duress PIN comes with the proof), is the owner's proven
 * alert: a link alone cannot end, move or read it. One started with the link alone fires as
 * the link's alert: its budgets, its calls, and its note given as the link holder's. Null
 * when nothing was sent now.
 */
export async function sendCheckinAlert(
  deps: FireDeps,
  checkin: Checkin,
  reason: 'missed_checkin' | 'duress',
  mark?: (trx: Transaction<Database>, alertId: string) => Promise<void>,
): Promise<Alert | null> {
  const user = await findById(deps.db, checkin.user_id);
  if (!user) return null;
  const now = deps.clock.now();
  // Whatever the plan is now: a check-in that was started is held to its end.
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  const known = profile.gps_enabled && checkin.latitude !== null && checkin.longitude !== null;
  const location = known
    ? {
        latitude: Number(checkin.latitude),
        longitude: Number(checkin.longitude),
        accuracy: Number(checkin.accuracy ?? 0),
        captured_at: Number(checkin.captured_at ?? now),
      }
    : null;
  const proven = reason === 'duress' || Number(checkin.proven) === 1;
  const sms = (liveUrl: string) =>
    checkinMessage({
      linkOnly: !proven,
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      reason,
      dueAt: Number(checkin.due_at),
      note: checkin.note,
      location,
      now,
      liveUrl,
      replyHint: true,
    });
  const alert = {
    reason,
    idempotencyKey: `${reason}:${checkin.id}`,
    location,
    contactLimit: profile.contact_limit,
    sms,
    proven,
  };
  return sendServerAlert(deps, user, now, alert, mark);
}
