import type { FastifyInstance } from 'fastify';
import { detailError } from '../../lib/errors.js';
import { liveSubscriptions, updateSubscription } from './repository.js';
import { reportPendingUsage } from './usage.js';

/**
 * Ends every live subscription of the user at the payment provider, then records it
 * cancelled here; account deletion calls this first so no one is billed for a deleted
 * account. SMS sent but not yet reported are reported first, and the provider invoices the
 * metered usage with the cancellation, so deleting an account never leaves SMS unpaid.
 * A provider failure throws, and the account is then kept.
 */
export async function cancelAtProvider(app: FastifyInstance, userId: string): Promise<void> {
  for (const row of await liveSubscriptions(app.db, userId)) {
    if (row.provider === app.payments.name && row.provider_subscription_id) {
      try {
        await reportPendingUsage(app.db, app.payments, app.clock.now(), undefined, userId);
        await app.payments.cancelNow(row.provider_subscription_id);
      } catch (error) {
        app.log.error({ err: error }, 'payment provider refused to cancel the subscription');
        throw detailError(
          502,
          'The payment service is unavailable, so the subscription could not be cancelled. Please try again.',
          'payment_provider_error',
        );
      }
    } else if (row.provider !== 'simulated') {
      app.log.warn({ provider: row.provider }, 'subscription of a provider no longer configured: cancel it there');
    }
    await updateSubscription(app.db, row.id, { status: 'canceled', updated_at: app.clock.now() });
  }
}
