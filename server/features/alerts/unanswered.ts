import type { FastifyBaseLogger } from 'fastify';
import type { Delivery } from '../../db/schema.js';
import type { SmsPort } from '../../providers/sms/port.js';

/** A send (or lookup) that got no answer: the provider may have acted on it all the same. */
export const isUnanswered = (error: unknown) => (error as { unanswered?: unknown } | null)?.unanswered === true;

/** `promise`, or a rejection marked unanswered once `ms` have passed without its answer. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`provider did not answer within ${ms} ms`), { unanswered: true })),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A provider's error as logs may show it: providers quote the number, and logs never hold contacts' numbers. */
export const loggable = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).replace(/\+?\d[\d ()-]{5,}\d/g, '…');

/**
 * Whether a message the provider holds with this delivery's number and text can only be this
 * delivery's: a real alert's SMS carries the contact's own live-link key (compose.ts), an
 * escalation SMS the alert's live link, queued once per alert and number. An all-clear or a test
 * alert repeats a text the same number may get again from the same owner (the next all-clear,
 * the same test message): a match could be another delivery's SMS, and taking it for this one
 * would leave a contact without theirs, so those are sent again (two rather than none).
 */
export const textIsOwn = (delivery: Pick<Delivery, 'contact_key_hash' | 'kind'>) =>
  delivery.contact_key_hash !== null || delivery.kind === 'escalation';

/**
 * The provider's id for this delivery's SMS when an earlier attempt was never answered and the
 * provider holds it after all (then it is not sent again); undefined when it should be sent.
 */
export async function heldByProvider(
  sms: SmsPort,
  delivery: Pick<Delivery, 'id' | 'phone_number' | 'body' | 'unanswered_since' | 'contact_key_hash' | 'kind'>,
  timeoutMs: number,
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<string | undefined> {
  const since = delivery.unanswered_since;
  if (since === null || !sms.find || !textIsOwn(delivery)) return undefined;
  try {
    const found = await withTimeout(sms.find({ to: delivery.phone_number, body: delivery.body, since }), timeoutMs);
    if (!found) return undefined;
    log?.warn({ delivery: delivery.id }, 'SMS held by the provider after an unanswered attempt: not sent again');
    return found.providerMessageId;
  } catch (error) {
    // A contact without the SMS is worse than one with two: when the provider cannot tell, it is sent again.
    log?.warn({ delivery: delivery.id, reason: loggable(error) }, 'SMS lookup failed: sending again');
    return undefined;
  }
}
