import type { NewAlert, NewDelivery } from '../../db/schema.js';
import { contactKeyHash, contactPageUrl, newContactKey } from '../live/index.js';
import { queuedDelivery } from './deliveries.js';

/**
 * One queued delivery per recipient. A real alert's SMS carries each contact's own live link
 * (its key stored hashed on the delivery): their "on my way" always has a slot. `sms` writes
 * the text around a live link; a test alert's SMS is the alert's message as it is.
 */
export function contactDeliveries(
  appUrl: string,
  alert: NewAlert,
  recipients: { name: string; phone_number: string }[],
  sms: (liveUrl: string) => string,
  now: number,
): NewDelivery[] {
  return recipients.map((contact) => {
    const key = alert.mode === 'real' ? newContactKey() : null;
    return {
      ...queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: contact.name, phone_number: contact.phone_number },
        body: key ? sms(contactPageUrl(appUrl, alert.public_id, key)) : alert.message,
        now,
      }),
      contact_key_hash: key ? contactKeyHash(key) : null,
    };
  });
}
