import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { WebhookError } from '../../providers/payments/port.js';
import { applyWebhookEvent } from './sync.js';

/**
 * A provider event as received: verified on its raw bytes against the signature, then applied
 * once (`duplicate` when it was before). Nothing is read from a body that does not verify.
 */
export async function receiveWebhook(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'payments' | 'log'>,
  raw: unknown,
  signature: string | undefined,
): Promise<{ received: true; duplicate: boolean }> {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw detailError(400, 'Empty webhook body.', 'invalid_payload');
  let webhook: ReturnType<typeof deps.payments.verifyWebhook>;
  try {
    webhook = deps.payments.verifyWebhook(raw, signature);
  } catch (error) {
    if (error instanceof WebhookError) throw detailError(400, 'Invalid webhook signature.', 'invalid_signature');
    throw error;
  }
  const applied = await applyWebhookEvent(deps, webhook);
  return { received: true, duplicate: !applied };
}
