import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { dailyMessage } from '../../../common/sms-text-daily.js';
import type { Alert, Database, User } from '../../db/schema.js';
import { type ServerAlertDeps, sendServerAlert } from '../alerts/index.js';
import { subscriptionProfile } from '../billing/index.js';
import { ownerLanguage } from '../owner/index.js';
import { lastKnownPosition } from './repository.js';

export type DailyFireDeps = ServerAlertDeps;

/**
 * The missed daily check-in's real alert, sent as a pressed one goes (live links per contact,
 * budgets, history, escalation by phone), with the SMS naming the last sign of life and the last
 * known position with its age. One per owner and due time (the alert's idempotency key); `mark`
 * commits with it or throws `AlertMoved` to send nothing. Stored as the owner's proven alert
 * (alerts/server-fired.ts, as for a check-in's): a link alone cannot end or quiet it.
 */
export async function sendMissedDaily(
  deps: DailyFireDeps,
  user: User,
  missed: { dueAt: number; since: number },
  mark: (trx: Transaction<Database>, alertId: string) => Promise<void>,
): Promise<Alert | null> {
  const now = deps.clock.now();
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  const location = profile.gps_enabled ? await lastKnownPosition(deps.db, user.id) : null;
  const sms = (liveUrl: string) =>
    dailyMessage({
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      since: missed.since,
      location,
      now,
      liveUrl,
      replyHint: true,
    });
  const alert = {
    reason: 'missed_daily' as const,
    idempotencyKey: `missed_daily:${missed.dueAt}`,
    location,
    contactLimit: profile.contact_limit,
    sms,
  };
  return sendServerAlert(deps, user, now, alert, mark);
}
