import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { checkinMessage } from '../../../common/sms-checkin-text.js';
import type { Alert, Checkin, Database, NewAlert } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { orderedId, randomToken } from '../../lib/ids.js';
import { findById } from '../accounts/repository.js';
import { contactDeliveries } from '../alerts/compose.js';
import { ownerLanguage } from '../alerts/owners.js';
import { storeAlert } from '../alerts/service.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import { alertedContacts } from '../contacts/repository.js';
import { escalationAt } from '../escalation/service.js';
import { livePageUrl } from '../live/links.js';

export type FireDeps = Pick<
  Deps,
  'db' | 'dialect' | 'clock' | 'config' | 'dispatcher' | 'background' | 'mail' | 'log' | 'tokens' | 'push' | 'timers'
>;

/** The check-in was ended (or moved) first: its alert must not go. */
export class CheckinMoved extends Error {}

/**
 * Sends the real alert of a check-in, exactly as a pressed one goes (live links per contact,
 * budgets, history), with the check-in's SMS: `missed_checkin` names its due time, note and
 * last position; `duress` warns the contacts. One per check-in and reason (the alert's
 * idempotency key). `mark` commits with the alert (the check-in marked fired) or throws
 * `CheckinMoved` to send nothing. The owner is mailed about a missed check-in, never about a
 * duress alert (someone may be watching their mail). Both are stored as the owner's proven
 * alerts: a link alone cannot end or move them. Null when nothing was sent now.
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
  const contacts = await alertedContacts(deps.db, user.id, profile.contact_limit);
  const known = profile.gps_enabled && checkin.latitude !== null && checkin.longitude !== null;
  const location = known
    ? {
        latitude: Number(checkin.latitude),
        longitude: Number(checkin.longitude),
        accuracy: Number(checkin.accuracy ?? 0),
        captured_at: Number(checkin.captured_at ?? now),
      }
    : null;
  const publicId = randomToken(16);
  const sms = (liveUrl: string) =>
    checkinMessage({
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      reason,
      dueAt: Number(checkin.due_at),
      note: checkin.note,
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
    reason,
    idempotency_key: `${reason}:${checkin.id}`,
    latitude: location?.latitude ?? null,
    longitude: location?.longitude ?? null,
    accuracy: location?.accuracy ?? null,
    captured_at: location?.captured_at ?? null,
    location_error: location ? null : 'unavailable',
    message: sms(livePageUrl(appUrl, publicId)),
    created_at: now,
    resolved_at: null,
    last_update_at: null,
    request_hash: null,
    // The server fired it for the owner: only the owner's proof may end it, move it or quiet it.
    proven: 1,
    escalation_at: escalationAt(user, deps.config, now),
  };
  const deliveries = contactDeliveries(appUrl, row, contacts, sms, now);
  let result: Awaited<ReturnType<typeof storeAlert>>;
  try {
    result = await storeAlert(deps, row, deliveries, now, mark ? (trx) => mark(trx, row.id) : undefined);
  } catch (error) {
    if (error instanceof CheckinMoved) return null;
    throw error;
  }
  if (!result.created) return null;
  return result.alert;
}
