import type { FastifyBaseLogger } from 'fastify';
import type { Delivery } from '../../db/schema.js';
import type { DueJob } from '../../jobs/index.js';
import { heldAfterAttempt, withTimeout } from '../../providers/calls.js';
import type { SmsPort } from '../../providers/sms/port.js';
import type { ClaimedDelivery } from './deliveries-repository.js';

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
  const find = sms.find.bind(sms);
  const found = await heldAfterAttempt(
    () => find({ to: delivery.phone_number, body: delivery.body, since }),
    timeoutMs,
    (reason) => log?.warn({ delivery: delivery.id, reason }, 'SMS lookup failed: sending again'),
  );
  if (!found) return undefined;
  log?.warn({ delivery: delivery.id }, 'SMS held by the provider after an unanswered attempt: not sent again');
  return found.providerMessageId;
}

/**
 * Hands one delivery being sent to the provider (the delivery's id its reference), unless an
 * unanswered attempt already reached it, and resolves as soon as the provider has answered with
 * the writing of the outcome: `sent` with the provider's id, or `failed` (retried later). Its job
 * stays leased until the outcome is written, so no other process takes it meanwhile; a run that
 * no longer holds it right before the send (stalled past its lease, taken over) sends nothing,
 * and its `sent` is written only while it holds the job.
 */
export async function handOver(
  delivery: ClaimedDelivery,
  run: Pick<DueJob, 'holds' | 'leaseToken'>,
  via: {
    sms: SmsPort;
    lookupTimeoutMs: number;
    sendTimeoutMs: number;
    log?: Pick<FastifyBaseLogger, 'warn'> | undefined;
    sent: (delivery: ClaimedDelivery, providerMessageId: string, lease: string) => Promise<void>;
    failed: (delivery: ClaimedDelivery, error: unknown) => Promise<void>;
  },
): Promise<() => Promise<void>> {
  const held = await heldByProvider(via.sms, delivery, via.lookupTimeoutMs, via.log);
  if (held) return () => via.sent(delivery, held, run.leaseToken);
  if (!(await run.holds())) {
    via.log?.warn({ delivery: delivery.id }, 'SMS not sent: its job was taken over by another run, which sends it');
    return async () => {};
  }
  try {
    const { providerMessageId } = await withTimeout(
      via.sms.send({ to: delivery.phone_number, body: delivery.body, reference: delivery.id }),
      via.sendTimeoutMs,
    );
    return () => via.sent(delivery, providerMessageId, run.leaseToken);
  } catch (error) {
    return () => via.failed(delivery, error);
  }
}
