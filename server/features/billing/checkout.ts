import type { FastifyInstance } from 'fastify';
import type { PlanName, User } from '../../db/schema.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { activateSubscription, currentSubscription, isActive } from './subscriptions.js';

export const ALREADY_SUBSCRIBED = 'You already have an active subscription. Manage it from Setup.';

/** `{"error": text, "code": code}`: the shape the pricing and trial pages show in an alert. */
export const billingError = (status: number, error: string, code: string) => new ApiError(status, { error, code });

/** True when the user has a subscription that gives access now. */
export async function hasActivePlan(app: FastifyInstance, userId: string): Promise<boolean> {
  const now = app.clock.now();
  const subscription = await currentSubscription(app.db, userId, now);
  return subscription !== undefined && isActive(subscription, now);
}

/** The newest provider customer id of the user's subscriptions at this provider, if any. */
export async function customerIdOf(app: FastifyInstance, userId: string): Promise<string | null> {
  const row = await app.db
    .selectFrom('subscriptions')
    .select('provider_customer_id')
    .where('user_id', '=', userId)
    .where('provider', '=', app.payments.name)
    .where('provider_customer_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.provider_customer_id ?? null;
}

/**
 * Opens a checkout for `plan`. A user's first premium checkout carries the trial (card
 * required); someone with a live plan is sent to manage it instead.
 */
export async function startCheckout(app: FastifyInstance, user: User, plan: PlanName): Promise<{ url: string }> {
  if (await hasActivePlan(app, user.id)) throw billingError(400, ALREADY_SUBSCRIBED, 'already_subscribed');
  const withTrial = plan === 'premium' && user.trial_used_at === null;
  const checkoutId = newId();
  await app.db
    .insertInto('checkout_sessions')
    .values({
      id: checkoutId,
      user_id: user.id,
      provider: app.payments.name,
      provider_session_id: null,
      plan,
      with_trial: withTrial ? 1 : 0,
      status: 'open',
      created_at: app.clock.now(),
    })
    .execute();
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
    await app.db.updateTable('checkout_sessions').set({ status: 'canceled' }).where('id', '=', checkoutId).execute();
    throw billingError(502, 'The payment service is unavailable. Please try again.', 'payment_provider_error');
  }
  if (opened.providerSessionId) {
    await app.db
      .updateTable('checkout_sessions')
      .set({ provider_session_id: opened.providerSessionId })
      .where('id', '=', checkoutId)
      .execute();
  }
  return { url: opened.url };
}

export type SimulatedOutcome = 'paid' | 'canceled';

/**
 * Pays a simulated checkout: activates the plan exactly as the provider's webhook would
 * (trial when the checkout carries one and the user never had one). Paying twice is
 * harmless; a cancelled checkout cannot be paid.
 */
export async function paySimulatedCheckout(app: FastifyInstance, checkoutId: string): Promise<SimulatedOutcome> {
  const checkout = await openCheckout(app, checkoutId);
  if (checkout.status === 'paid') return 'paid';
  if (checkout.status === 'canceled') throw billingError(409, 'This checkout was cancelled.', 'checkout_canceled');
  // Claim the checkout first so two clicks on Pay activate one subscription.
  const claimed = await app.db
    .updateTable('checkout_sessions')
    .set({ status: 'paid' })
    .where('id', '=', checkoutId)
    .where('status', '=', 'open')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return paySimulatedCheckout(app, checkoutId);
  try {
    if (await hasActivePlan(app, checkout.user_id)) {
      await app.db.updateTable('checkout_sessions').set({ status: 'canceled' }).where('id', '=', checkoutId).execute();
      throw billingError(400, ALREADY_SUBSCRIBED, 'already_subscribed');
    }
    const user = await app.db
      .selectFrom('users')
      .select('trial_used_at')
      .where('id', '=', checkout.user_id)
      .executeTakeFirstOrThrow();
    const trial = checkout.with_trial === 1 && user.trial_used_at === null;
    await activateSubscription(app.db, {
      userId: checkout.user_id,
      plan: checkout.plan,
      now: app.clock.now(),
      trialDays: trial ? app.config.TRIAL_DAYS : undefined,
      provider: 'simulated',
      providerCustomerId: `cus_sim_${checkout.user_id}`,
      providerSubscriptionId: `sub_sim_${checkoutId}`,
    });
    return 'paid';
  } catch (error) {
    if (!(error instanceof ApiError)) {
      await app.db.updateTable('checkout_sessions').set({ status: 'open' }).where('id', '=', checkoutId).execute();
    }
    throw error;
  }
}

/** Abandons a simulated checkout; the profile stays as it was. */
export async function cancelSimulatedCheckout(app: FastifyInstance, checkoutId: string): Promise<SimulatedOutcome> {
  const checkout = await openCheckout(app, checkoutId);
  if (checkout.status === 'paid') return 'paid';
  await app.db
    .updateTable('checkout_sessions')
    .set({ status: 'canceled' })
    .where('id', '=', checkoutId)
    .where('status', '=', 'open')
    .execute();
  return 'canceled';
}

/** The simulated checkout `id`, or a 404. */
export async function openCheckout(app: FastifyInstance, checkoutId: string) {
  const checkout = await app.db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', checkoutId)
    .where('provider', '=', 'simulated')
    .executeTakeFirst();
  if (!checkout) throw billingError(404, 'Checkout not found.', 'not_found');
  return checkout;
}
