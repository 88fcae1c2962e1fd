import type { FastifyBaseLogger } from 'fastify';
import type { SmsPort } from '../../providers/sms/port.js';
import type { ClaimedDelivery } from './deliveries.js';
import { heldByProvider, withTimeout } from './unanswered.js';

/**
 * Hands one delivery being sent to the provider (the delivery's id its reference), unless an
 * unanswered attempt already reached it, and resolves as soon as the provider has answered with
 * the writing of the outcome: `sent` with the provider's id, or `failed` (retried later). Its job
 * stays leased until the outcome is written, so no other process takes it meanwhile.
 */
export async function handOver(
  delivery: ClaimedDelivery,
  via: {
    sms: SmsPort;
    lookupTimeoutMs: number;
    sendTimeoutMs: number;
    log?: Pick<FastifyBaseLogger, 'warn'> | undefined;
    sent: (delivery: ClaimedDelivery, providerMessageId: string) => Promise<void>;
    failed: (delivery: ClaimedDelivery, error: unknown) => Promise<void>;
  },
): Promise<() => Promise<void>> {
  const held = await heldByProvider(via.sms, delivery, via.lookupTimeoutMs, via.log);
  if (held) return () => via.sent(delivery, held);
  try {
    const { providerMessageId } = await withTimeout(
      via.sms.send({ to: delivery.phone_number, body: delivery.body, reference: delivery.id }),
      via.sendTimeoutMs,
    );
    return () => via.sent(delivery, providerMessageId);
  } catch (error) {
    return () => via.failed(delivery, error);
  }
}
