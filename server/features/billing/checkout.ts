import type { PlanName, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { ApiError, type ErrorCode } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { insertCheckout, latestCustomerId, setCheckoutProviderSession, setCheckoutStatus } from './repository.js';
import { currentSubscription, isActive } from './subscriptions.js';

export const ALREADY_SUBSCRIBED = 'You already have an active subscription. Manage it from Setup.';
export const PROVIDER_UNAVAILABLE = 'The payment service is unavailable. Please try again.';
export const NO_SUBSCRIPTION_TO_MANAGE = 'You have no subscription to manage yet.';

/** What talking to the payment provider needs: its failures are logged, and answered as a 502. */
export type ProviderDeps = Pick<Deps, 'db' | 'clock' | 'payments' | 'log'>;

/** `{"error": text, "code": code}`: the shape the pricing and trial pages show in an alert. */
export const billingError = (status: number, error: string, code: ErrorCode) => new ApiError(status, { error, code });

/** True when the user has a subscription that gives access now. */
export async function hasActivePlan(deps: Pick<Deps, 'db' | 'clock'>, userId: string): Promise<boolean> {
  const now = deps.clock.now();
  const subscription = await currentSubscription(deps.db, userId, now);
  return subscription !== undefined && isActive(subscription, now);
}

/** The newest provider customer id of the user's subscriptions at this provider, if any. */
export function customerIdOf(deps: Pick<Deps, 'db' | 'payments'>, userId: string): Promise<string | null> {
  return latestCustomerId(deps.db, userId, deps.payments.name);
}

/**
 * Opens a checkout for `plan`. A user's first premium checkout carries the trial (card
 * required); someone with a live plan is sent to manage it instead.
 */
export async function startCheckout(
  deps: ProviderDeps & Pick<Deps, 'config'>,
  user: User,
  plan: PlanName,
): Promise<{ url: string }> {
  if (await hasActivePlan(deps, user.id)) throw billingError(400, ALREADY_SUBSCRIBED, 'already_subscribed');
  const withTrial = plan === 'premium' && user.trial_used_at === null;
  const checkoutId = newId();
  await insertCheckout(deps.db, {
    id: checkoutId,
    user_id: user.id,
    provider: deps.payments.name,
    provider_session_id: null,
    plan,
    with_trial: withTrial ? 1 : 0,
    status: 'open',
    created_at: deps.clock.now(),
  });
  let opened: { url: string; providerSessionId: string | null };
  try {
    opened = await deps.payments.createCheckout({
      checkoutId,
      userId: user.id,
      email: user.email,
      plan,
      trialDays: withTrial ? deps.config.TRIAL_DAYS : null,
      customerId: await customerIdOf(deps, user.id),
    });
  } catch (error) {
    deps.log.error({ err: error }, 'payment provider refused the checkout');
    await setCheckoutStatus(deps.db, checkoutId, 'canceled');
    throw billingError(502, PROVIDER_UNAVAILABLE, 'payment_provider_error');
  }
  if (opened.providerSessionId) await setCheckoutProviderSession(deps.db, checkoutId, opened.providerSessionId);
  return { url: opened.url };
}

/** Opens the provider's portal for a subscriber (plan change, cancellation). */
export async function openPortal(deps: ProviderDeps, userId: string): Promise<{ url: string }> {
  const subscription = await currentSubscription(deps.db, userId, deps.clock.now());
  const customerId = await customerIdOf(deps, userId);
  if (!subscription || (deps.payments.name !== 'simulated' && !customerId)) {
    throw billingError(400, NO_SUBSCRIPTION_TO_MANAGE, 'no_subscription');
  }
  try {
    return await deps.payments.createPortal({ userId, customerId });
  } catch (error) {
    deps.log.error({ err: error }, 'payment provider refused the portal');
    throw billingError(502, PROVIDER_UNAVAILABLE, 'payment_provider_error');
  }
}
