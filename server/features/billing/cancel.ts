import type { Deps } from '../../lib/deps.js';
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
export async function cancelAtProvider(
  deps: Pick<Deps, 'db' | 'clock' | 'payments' | 'log'>,
  userId: string,
): Promise<void> {
  for (const row of await liveSubscriptions(deps.db, userId)) {
    if (row.provider === deps.payments.name && row.provider_subscription_id) {
      try {
        await reportPendingUsage(deps.db, deps.payments, deps.clock.now(), undefined, userId);
        await deps.payments.cancelNow(row.provider_subscription_id);
      } catch (error) {
        deps.log.error({ err: error }, 'payment provider refused to cancel the subscription');
        throw detailError(
          502,
          'The payment service is unavailable, so the subscription could not be cancelled. Please try again.',
          'payment_provider_error',
        );
      }
    } else if (row.provider !== 'simulated') {
      deps.log.warn({ provider: row.provider }, 'subscription of a provider no longer configured: cancel it there');
    }
    await updateSubscription(deps.db, row.id, { status: 'canceled', updated_at: deps.clock.now() });
  }
}
