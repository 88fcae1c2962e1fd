import type { FastifyBaseLogger } from 'fastify';
import type { DueJob } from '../../jobs/index.js';
import type { SmsPort } from '../../providers/sms/port.js';
import type { ClaimedDelivery } from './deliveries.js';
import { heldByProvider, withTimeout } from './unanswered.js';

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
