import type { FastifyInstance } from 'fastify';
import type { PlanName, User } from '../../db/schema.js';
import { ApiError, type ErrorCode } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { insertCheckout, latestCustomerId, setCheckoutProviderSession, setCheckoutStatus } from './repository.js';
import { currentSubscription, isActive } from './subscriptions.js';

export const ALREADY_SUBSCRIBED = 'You already have an active subscription. Manage it from Setup.';
export const PROVIDER_UNAVAILABLE = 'The payment service is unavailable. Please try again.';
export const NO_SUBSCRIPTION_TO_MANAGE = 'You have no subscription to manage yet.';

/** `{"error": text, "code": code}`: the shape the pricing and trial pages show in an alert. */
export const billingError = (status: number, error: string, code: ErrorCode) => new ApiError(status, { error, code });

/** True when the user has a subscription that gives access now. */
export async function hasActivePlan(app: FastifyInstance, userId: string): Promise<boolean> {
  const now = app.clock.now();
  const subscription = await currentSubscription(app.db, userId, now);
  return subscription !== undefined && isActive(subscription, now);
}

/** The newest provider customer id of the user's subscriptions at this provider, if any. */
export function customerIdOf(app: FastifyInstance, userId: string): Promise<string | null> {
  return latestCustomerId(app.db, userId, app.payments.name);
}

/**
 * Opens a checkout for `plan`. A user's first premium checkout carries the trial (card
 * required); someone with a live plan is sent to manage it instead.
 */
export async function startCheckout(app: FastifyInstance, user: User, plan: PlanName): Promise<{ url: string }> {
  if (await hasActivePlan(app, user.id)) throw billingError(400, ALREADY_SUBSCRIBED, 'already_subscribed');
  const withTrial = plan === 'premium' && user.trial_used_at === null;
  const checkoutId = newId();
  await insertCheckout(app.db, {
    id: checkoutId,
    user_id: user.id,
    provider: app.payments.name,
    provider_session_id: null,
    plan,
    with_trial: withTrial ? 1 : 0,
    status: 'open',
    created_at: app.clock.now(),
  });
  let opened: { url: string; providerSessionId: string | null };
  try {
    opened = await app.payments.createCheckout({
      checkoutId,
      userId: user.id,
      email: user.email,
      plan,
      trialDays: withTrial ? app.config.TRIAL_DAYS : null,
      customerId: await customerIdOf(app, user.id),
    });
  } catch (error) {
    app.log.error({ err: error }, 'payment provider refused the checkout');
    await setCheckoutStatus(app.db, checkoutId, 'canceled');
    throw billingError(502, PROVIDER_UNAVAILABLE, 'payment_provider_error');
  }
  if (opened.providerSessionId) await setCheckoutProviderSession(app.db, checkoutId, opened.providerSessionId);
  return { url: opened.url };
}

/** Opens the provider's portal for a subscriber (plan change, cancellation). */
export async function openPortal(app: FastifyInstance, userId: string): Promise<{ url: string }> {
  const subscription = await currentSubscription(app.db, userId, app.clock.now());
  const customerId = await customerIdOf(app, userId);
  if (!subscription || (app.payments.name !== 'simulated' && !customerId)) {
    throw billingError(400, NO_SUBSCRIPTION_TO_MANAGE, 'no_subscription');
  }
  try {
    return await app.payments.createPortal({ userId, customerId });
  } catch (error) {
    app.log.error({ err: error }, 'payment provider refused the portal');
    throw billingError(502, PROVIDER_UNAVAILABLE, 'payment_provider_error');
  }
}
