import { randomUUID } from 'node:crypto';
import type { DevOutbox } from '../outbox.js';
import { OPTED_OUT_CODE, type ProviderStatus, type SmsPort } from './port.js';

export interface OutboxSms extends SmsPort {
  /** Makes the next `count` sends fail with `reason` (tests). */
  failNext(count: number, reason?: string): void;
  /** Refuses every send to `phone` as Twilio does one whose recipient replied STOP to the carrier (error 21610). */
  refuseAsOptedOut(phone: string): void;
}

/** The outbox's refusal of a number that opted out at the carrier, as the Twilio adapter reports it. */
class OptedOutAtCarrier extends Error {
  readonly permanent = true;
  readonly optedOut = true;
}

/**
 * The embedded default: captures every SMS in the dev outbox, reports it sent at
 * once and delivered a moment later, like a provider's receipts.
 */
export function createOutboxSms(outbox: DevOutbox, now: () => number, deliveryDelayMs = 300): OutboxSms {
  let listener: ((id: string, status: ProviderStatus, reason?: string) => void) | undefined;
  let failures = 0;
  let failureReason = 'simulated provider failure';
  const optedOut = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  return {
    name: 'outbox',
    async send(message) {
      if (failures > 0) {
        failures -= 1;
        throw new Error(failureReason);
      }
      if (optedOut.has(message.to)) {
        throw new OptedOutAtCarrier(`Twilio error ${OPTED_OUT_CODE}: Attempt to send to unsubscribed recipient`);
      }
      const id = `SM${randomUUID().replaceAll('-', '')}`;
      const captured = {
        id,
        to: message.to,
        body: message.body,
        status: 'sent' as const,
        sent_at: new Date(now()).toISOString(),
      };
      outbox.addSms(captured);
      const timer = setTimeout(() => {
        timers.delete(timer);
        const stored = outbox.sms.find((sms) => sms.id === id);
        if (stored) stored.status = 'delivered';
        listener?.(id, 'delivered');
      }, deliveryDelayMs);
      timer.unref();
      timers.add(timer);
      return { providerMessageId: id };
    },
    async find({ to, body, since }) {
      // The outbox keeps the latest 1,000 SMS: an older one is not found, and is sent again.
      const held = outbox.sms.find((sms) => sms.to === to && sms.body === body && Date.parse(sms.sent_at) >= since);
      return held ? { providerMessageId: held.id } : undefined;
    },
    onStatus(fn) {
      listener = fn;
    },
    failNext(count, reason = 'simulated provider failure') {
      failures = count;
      failureReason = reason;
    },
    refuseAsOptedOut(phone) {
      optedOut.add(phone);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
