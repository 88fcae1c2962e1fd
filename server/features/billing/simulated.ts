import type { PlanName, Subscription } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { ApiError } from '../../lib/errors.js';
import { ALREADY_SUBSCRIBED, billingError, hasActivePlan } from './checkout.js';
import { findCheckout, setCheckoutStatus, trialUsedAt, updateSubscription, usageSince } from './repository.js';
import { activateSubscription, currentSubscription, PERIOD_MS } from './subscriptions.js';

export type SimulatedOutcome = 'paid' | 'canceled';

/** The simulated checkout `id`, or a 404. */
export async function openCheckout(deps: Pick<Deps, 'db'>, checkoutId: string) {
  const checkout = await findCheckout(deps.db, checkoutId, 'simulated');
  if (!checkout) throw billingError(404, 'Checkout not found.', 'not_found');
  return checkout;
}

/**
 * Pays a simulated checkout: activates the plan exactly as the provider's webhook would
 * (trial when the checkout carries one and the user never had one). Paying twice is
 * harmless; a cancelled checkout cannot be paid.
 */
export async function paySimulatedCheckout(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  checkoutId: string,
): Promise<SimulatedOutcome> {
  const checkout = await openCheckout(deps, checkoutId);
  if (checkout.status === 'paid') return 'paid';
  if (checkout.status === 'canceled') throw billingError(409, 'This checkout was cancelled.', 'checkout_canceled');
  // Claim the checkout first so two clicks on Pay activate one subscription.
  if (!(await setCheckoutStatus(deps.db, checkoutId, 'paid', 'open'))) return paySimulatedCheckout(deps, checkoutId);
  try {
    if (await hasActivePlan(deps, checkout.user_id)) {
      await setCheckoutStatus(deps.db, checkoutId, 'canceled');
      throw billingError(400, ALREADY_SUBSCRIBED, 'already_subscribed');
    }
    const trial = checkout.with_trial === 1 && (await trialUsedAt(deps.db, checkout.user_id)) === null;
    await activateSubscription(deps.db, {
      userId: checkout.user_id,
      plan: checkout.plan,
      now: deps.clock.now(),
      trialDays: trial ? deps.config.TRIAL_DAYS : undefined,
      provider: 'simulated',
      providerCustomerId: `cus_sim_${checkout.user_id}`,
      providerSubscriptionId: `sub_sim_${checkoutId}`,
    });
    return 'paid';
  } catch (error) {
    if (!(error instanceof ApiError)) await setCheckoutStatus(deps.db, checkoutId, 'open');
    throw error;
  }
}

/** Abandons a simulated checkout; the profile stays as it was. */
export async function cancelSimulatedCheckout(deps: Pick<Deps, 'db'>, checkoutId: string): Promise<SimulatedOutcome> {
  const checkout = await openCheckout(deps, checkoutId);
  if (checkout.status === 'paid') return 'paid';
  await setCheckoutStatus(deps.db, checkoutId, 'canceled', 'open');
  return 'canceled';
}

/**
 * A simulated subscription as a provider would have moved it by `now`: an uncancelled
 * trial has renewed into paid premium, a paid period has renewed as often as time
 * passed, and a cancelled one has ended at its period end. Consistent with the lazy
 * reading of `isActive`, which needs no stored renewal.
 */
export function rolledForward(subscription: Subscription, now: number): Subscription {
  let row = subscription;
  if (row.provider !== 'simulated') return row;
  if (row.status === 'trialing' && row.trial_end !== null && now >= row.trial_end) {
    if (row.cancel_at_period_end) return { ...row, status: 'canceled' };
    row = { ...row, status: 'active', current_period_end: row.trial_end };
  }
  const end = row.current_period_end;
  if (row.status === 'active' && end !== null && now >= end) {
    if (row.cancel_at_period_end) return { ...row, status: 'canceled' };
    const periods = Math.floor((now - end) / PERIOD_MS) + 1;
    row = { ...row, current_period_end: end + periods * PERIOD_MS };
  }
  return row;
}

/** Stores what time did to the user's simulated subscription and returns it. */
export async function settledSubscription(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
): Promise<Subscription | undefined> {
  const now = deps.clock.now();
  const stored = await currentSubscription(deps.db, userId, now);
  if (!stored) return undefined;
  const row = rolledForward(stored, now);
  if (row !== stored) {
    await updateSubscription(deps.db, row.id, {
      status: row.status,
      current_period_end: row.current_period_end,
      updated_at: now,
    });
  }
  return row;
}

/** Start of the billing period the subscription is in (the trial counts as one). */
export function periodStart(subscription: Subscription, now: number): number {
  if (subscription.status === 'trialing' && subscription.trial_start !== null) return subscription.trial_start;
  const end = subscription.current_period_end ?? now;
  return Math.max(subscription.created_at, end - PERIOD_MS);
}

/** Billable and free SMS parts (what the provider bills) the user sent since `since`. */
export async function smsUsageSince(deps: Pick<Deps, 'db'>, userId: string, since: number) {
  const rows = await usageSince(deps.db, userId, since);
  const sum = (list: { parts: number }[]) => list.reduce((total, row) => total + row.parts, 0);
  const billable = sum(rows.filter((row) => row.billable));
  return { billable, free: sum(rows) - billable };
}

export type PortalAction = { type: 'plan'; plan: PlanName } | { type: 'cancel' } | { type: 'resume' };

/** Applies a portal action to the user's live simulated subscription. */
export async function applyPortalAction(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
  action: PortalAction,
): Promise<void> {
  const subscription = await settledSubscription(deps, userId);
  if (!subscription || subscription.status === 'canceled' || subscription.provider !== 'simulated') {
    throw billingError(400, 'You have no subscription to manage.', 'no_subscription');
  }
  const change =
    action.type === 'plan' ? { plan: action.plan } : { cancel_at_period_end: action.type === 'cancel' ? 1 : 0 };
  await updateSubscription(deps.db, subscription.id, { ...change, updated_at: deps.clock.now() });
}
