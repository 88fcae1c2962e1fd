import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { dailyMessage } from '../../../common/sms-text-daily.js';
import type { Alert, Database, NewAlert, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { orderedId, randomToken } from '../../lib/ids.js';
import { contactDeliveries } from '../alerts/compose.js';
import { ownerLanguage } from '../alerts/owners.js';
import { storeAlert } from '../alerts/service.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import { alertedContacts } from '../contacts/repository.js';
import { escalationAt } from '../escalation/service.js';
import { livePageUrl } from '../live/links.js';
import { lastKnownPosition } from './repository.js';

export type DailyFireDeps = Pick<
  Deps,
  'db' | 'dialect' | 'clock' | 'config' | 'dispatcher' | 'background' | 'mail' | 'log' | 'tokens' | 'push' | 'timers'
>;

/** The owner checked in (or changed the schedule) first: the alert must not go. */
export class DailyMoved extends Error {}

/**
 * The missed daily check-in's real alert, sent as a pressed one goes (live links per contact,
 * budgets, history, escalation by phone), with the SMS naming the last sign of life and the last
 * known position with its age. One per owner and due time (the alert's idempotency key); `mark`
 * commits with it or throws `DailyMoved` to send nothing. Stored as the owner's proven alert
 * (checkins/fire.ts does the same): a link alone cannot end or quiet it.
 */
export async function sendMissedDaily(
  deps: DailyFireDeps,
  user: User,
  missed: { dueAt: number; since: number },
  mark: (trx: Transaction<Database>, alertId: string) => Promise<void>,
): Promise<Alert | null> {
  const now = deps.clock.now();
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  const contacts = await alertedContacts(deps.db, user.id, profile.contact_limit);
  const location = profile.gps_enabled ? await lastKnownPosition(deps.db, user.id) : null;
  const publicId = randomToken(16);
  const sms = (liveUrl: string) =>
    dailyMessage({
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      since: missed.since,
      location,
      now,
      liveUrl,
    });
  const appUrl = deps.config.APP_URL;
  const row: NewAlert = {
    id: orderedId(),
    public_id: publicId,
    user_id: user.id,
    mode: 'real',
    reason: 'missed_daily',
    idempotency_key: `missed_daily:${missed.dueAt}`,
    latitude: location?.latitude ?? null,
    longitude: location?.longitude ?? null,
    accuracy: location?.accuracy ?? null,
    captured_at: location ? Number(location.captured_at) : null,
    location_error: location ? null : 'unavailable',
    message: sms(livePageUrl(appUrl, publicId)),
    created_at: now,
    resolved_at: null,
    last_update_at: null,
    request_hash: null,
    proven: 1,
    escalation_at: escalationAt(user, deps.config, now),
  };
  const deliveries = contactDeliveries(appUrl, row, contacts, sms, now);
  try {
    const result = await storeAlert(deps, row, deliveries, now, (trx) => mark(trx, row.id));
    return result.created ? result.alert : null;
  } catch (error) {
    if (error instanceof DailyMoved) return null;
    throw error;
  }
}
