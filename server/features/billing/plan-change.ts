import type { PlanName, User } from '../../db/schema.js';
import { billingError, PROVIDER_UNAVAILABLE, type ProviderDeps } from './checkout.js';
import { updateSubscription } from './repository.js';
import { currentSubscription, isActive } from './subscriptions.js';

export const PLAN_CHANGE_TEXTS = {
  noSubscription: 'You have no subscription to change. Choose a plan first.',
  samePlan: 'You are already on this plan.',
  providerError: PROVIDER_UNAVAILABLE,
} as const;

/**
 * Moves a subscriber to another plan through the provider's own upgrade or downgrade (Stripe
 * updates the subscription's price, prorated), then records it here at once; the provider's
 * webhook confirms it later. A trial in progress stays a trial.
 */
export async function changePlan(deps: ProviderDeps, user: User, plan: PlanName): Promise<{ plan: PlanName }> {
  const now = deps.clock.now();
  const subscription = await currentSubscription(deps.db, user.id, now);
  if (!subscription || !isActive(subscription, now)) {
    throw billingError(400, PLAN_CHANGE_TEXTS.noSubscription, 'no_subscription');
  }
  if (subscription.plan === plan) throw billingError(400, PLAN_CHANGE_TEXTS.samePlan, 'same_plan');
  try {
    if (subscription.provider !== deps.payments.name)
      throw new Error('subscription of a provider no longer configured');
    if (subscription.provider_subscription_id)
      await deps.payments.changePlan(subscription.provider_subscription_id, plan);
  } catch (error) {
    deps.log.error({ err: error }, 'payment provider refused the plan change');
    throw billingError(502, PLAN_CHANGE_TEXTS.providerError, 'payment_provider_error');
  }
  await updateSubscription(deps.db, subscription.id, { plan, updated_at: now });
  return { plan };
}
