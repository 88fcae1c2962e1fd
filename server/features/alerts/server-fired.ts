import type { Transaction } from 'kysely';
import type { AlertLocation } from '../../../common/sms-text.js';
import type { Alert, AlertReason, Database, NewAlert, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { orderedId, randomToken } from '../../lib/ids.js';
import { alertedContacts } from '../contacts/index.js';
import { escalationAt } from '../escalation/index.js';
import { livePageUrl } from '../live/index.js';
import { contactDeliveries } from './compose.js';
import { storeAlert } from './service.js';

export type ServerAlertDeps = Pick<
  Deps,
  'db' | 'dialect' | 'clock' | 'config' | 'dispatcher' | 'background' | 'mail' | 'log' | 'tokens' | 'push' | 'jobs'
>;

/** Thrown by a `mark` when what the alert is for changed first (ended, checked in): nothing is sent. */
export class AlertMoved extends Error {}

/** What a server-fired alert says: its reason, its once-only key, the position, and its SMS for a live link. */
export interface ServerAlert {
  reason: AlertReason;
  idempotencyKey: string;
  location: AlertLocation | null;
  contactLimit: number;
  sms: (liveUrl: string) => string;
  /**
   * False for the alarm of a check-in started with the link alone: it is a link-only alert
   * (the link's budgets, its calls at most once an hour per number). Otherwise the server fired
   * it for the owner, and it is theirs.
   */
  proven?: boolean;
}

/**
 * Sends a real alert the server fires for the owner (a missed check-in, a duress PIN, a missed
 * daily check-in), exactly as a pressed one goes: live links per contact, budgets, history,
 * escalation by phone. One per idempotency key; `mark` commits with it or throws `AlertMoved`
 * to send nothing. Null when nothing was sent now.
 */
export async function sendServerAlert(
  deps: ServerAlertDeps,
  user: User,
  now: number,
  alert: ServerAlert,
  mark?: (trx: Transaction<Database>, alertId: string) => Promise<void>,
): Promise<Alert | null> {
  const contacts = await alertedContacts(deps.db, user.id, alert.contactLimit);
  const { location } = alert;
  const publicId = randomToken(16);
  const appUrl = deps.config.APP_URL;
  const row: NewAlert = {
    id: orderedId(),
    public_id: publicId,
    user_id: user.id,
    mode: 'real',
    reason: alert.reason,
    idempotency_key: alert.idempotencyKey,
    latitude: location?.latitude ?? null,
    longitude: location?.longitude ?? null,
    accuracy: location?.accuracy ?? null,
    captured_at: location ? Number(location.captured_at) : null,
    location_error: location ? null : 'unavailable',
    message: alert.sms(livePageUrl(appUrl, publicId)),
    created_at: now,
    resolved_at: null,
    last_update_at: null,
    request_hash: null,
    // Fired for the owner: only the owner's proof may end it, move it, quiet it or read it.
    proven: alert.proven === false ? 0 : 1,
    escalation_at: escalationAt(user, deps.config, now),
  };
  const deliveries = contactDeliveries(appUrl, row, contacts, alert.sms, now);
  try {
    const result = await storeAlert(deps, row, deliveries, now, mark ? (trx) => mark(trx, row.id) : undefined, user);
    return result.created ? result.alert : null;
  } catch (error) {
    if (error instanceof AlertMoved) return null;
    throw error;
  }
}
