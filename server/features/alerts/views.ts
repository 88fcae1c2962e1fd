/** The wire shapes of alerts (common/api/alerts.ts), made from the rows the repository returns. */
import type { AlertView, OwnerAlert, ShownStatus } from '../../../common/api/alerts.js';
import type { Alert, Delivery, DeliveryStatus, EscalationCall, WithheldReason } from '../../db/schema.js';
import { iso, isoOrNull } from '../../lib/dates.js';
import { escalationView } from '../escalation/index.js';

/** A provider's "undelivered", an SMS withheld by the budget and one to a number that said STOP are shown as failed. */
export const shownStatus = (status: DeliveryStatus): ShownStatus =>
  status === 'undelivered' || status === 'withheld' || status === 'opted_out' ? 'failed' : status;

/** What the views show of a delivery: as read back, or as just written (no reason when none was set). */
type ShownDelivery = Pick<Delivery, 'id' | 'contact_name' | 'status' | 'created_at'> & {
  withheld_reason?: WithheldReason | null;
};

/** Why a withheld delivery was not sent; rows from before reasons were kept were all the account's own budget. */
const withheldReason = (d: ShownDelivery) =>
  d.status === 'withheld' ? (d.withheld_reason ?? 'recently_alerted') : null;

/**
 * The one order every view lists an alert's deliveries in: oldest first, then by contact name
 * (by code unit, whatever the database's collation), then id. A new alert's answer, made from
 * the rows as written, lists them as its status read later does.
 */
function listed<T extends ShownDelivery>(deliveries: T[]): T[] {
  const before = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...deliveries].sort(
    (a, b) => before(a.created_at, b.created_at) || before(a.contact_name, b.contact_name) || before(a.id, b.id),
  );
}

/** A delivery as the API shows it; `withheld` (and why) when an SMS budget kept it from being sent. */
const deliveryView = (d: ShownDelivery) => {
  const reason = withheldReason(d);
  return {
    contact_name: d.contact_name,
    status: shownStatus(d.status),
    ...(reason ? { withheld: true as const, withheld_reason: reason } : {}),
    ...(d.status === 'opted_out' ? { opted_out: true as const } : {}),
  };
};

/**
 * The public answer for an alert: `{id, public_id, mode, created_at, proven,
 * recently_alerted, number_busy, deliveries: [{contact_name, status, withheld?,
 * withheld_reason?}]}`. `recently_alerted` only when this account's own earlier alerts
 * reached a contact in the window (its own budget withheld the SMS); `number_busy` when the
 * number's ceiling for all senders did; `escalation`, whether and when the contacts are
 * phoned, and each call.
 */
export function alertView(alert: Alert, stored: ShownDelivery[], calls: EscalationCall[] = []): AlertView {
  const deliveries = listed(stored);
  const reasons = deliveries.map(withheldReason);
  return {
    id: alert.id,
    public_id: alert.public_id,
    mode: alert.mode,
    reason: alert.reason,
    created_at: iso(alert.created_at),
    proven: alert.proven === 1,
    recently_alerted: reasons.includes('recently_alerted'),
    number_busy: reasons.includes('number_busy'),
    deliveries: deliveries.map(deliveryView),
    escalation: escalationView(alert, calls),
  };
}

/** An alert in the owner's history: location, text and each delivery's status and attempts. */
export function ownerAlertView(alert: Alert, deliveries: Delivery[]): OwnerAlert {
  return {
    id: alert.id,
    public_id: alert.public_id,
    mode: alert.mode,
    reason: alert.reason,
    created_at: iso(alert.created_at),
    location:
      alert.latitude !== null && alert.longitude !== null
        ? {
            latitude: alert.latitude,
            longitude: alert.longitude,
            accuracy: alert.accuracy,
            captured_at: isoOrNull(alert.captured_at),
          }
        : null,
    location_error: alert.location_error,
    message: alert.message,
    deliveries: listed(deliveries).map((d) => ({
      ...deliveryView(d),
      phone_number: d.phone_number,
      attempts: d.attempts,
      last_error: d.last_error,
      updated_at: iso(d.updated_at),
    })),
  };
}
