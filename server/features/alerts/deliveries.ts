import { smsParts } from '../../../common/sms-encoding.js';
import type { DeliveryKind, NewDelivery } from '../../db/schema.js';
import { orderedId } from '../../lib/ids.js';
import type { ClaimedDelivery } from './deliveries-repository.js';

// What a delivery is: the record of one SMS, made by one factory; its statements, and the job
// that sends it, are deliveries-repository.ts.

/** SMS parts a text is sent (and billed) as: at least one. */
export const partsOf = (body: string) => Math.max(1, smsParts(body));

/**
 * The one way a delivery row is made: one SMS of `body` to one recipient, queued, with the SMS
 * parts it takes (what budgets and billing count); its job (`smsJob`) is written with it, in the
 * same transaction. `kind` tells the alert's own SMS from the all-clear.
 */
export function queuedDelivery(input: {
  alertId: string;
  recipient: { contact_name: string; phone_number: string };
  body: string;
  now: number;
  kind?: DeliveryKind;
}): NewDelivery {
  const { alertId, recipient, body, now, kind = 'alert' } = input;
  return {
    id: orderedId(),
    alert_id: alertId,
    kind,
    contact_name: recipient.contact_name,
    phone_number: recipient.phone_number,
    body,
    parts: partsOf(body),
    status: 'queued',
    attempts: 0,
    provider_message_id: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The first `slots` of the deliveries still queued written already being sent (`sending`, the
 * attempt counted), as `takeDelivery` would leave them: their jobs are written leased to this
 * process (`claimAtWrite`), which sends them after the commit. The rest are as given.
 */
export function claimedOnInsert(rows: NewDelivery[], reserved: { slots: number; now: number }): NewDelivery[] {
  let left = reserved.slots;
  return rows.map((row) => {
    if (left <= 0 || row.status !== 'queued') return row;
    left -= 1;
    return { ...row, status: 'sending', attempts: (row.attempts ?? 0) + 1, updated_at: reserved.now };
  });
}

/** A delivery written by `claimedOnInsert` as its job's run sends it, with its alert's owner. */
export const asClaimed = (row: NewDelivery, userId: string): ClaimedDelivery => ({
  kind: 'alert',
  parts: partsOf(row.body),
  withheld_reason: null,
  contact_key_hash: null,
  unanswered_since: null,
  ...row,
  provider_message_id: row.provider_message_id ?? null,
  last_error: row.last_error ?? null,
  user_id: userId,
});
