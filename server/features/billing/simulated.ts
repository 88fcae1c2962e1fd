import type { FastifyInstance } from 'fastify';
import type { PlanName, Subscription } from '../../db/schema.js';
import { billingError } from './checkout.js';
import { currentSubscription, PERIOD_MS } from './subscriptions.js';

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
export async function settledSubscription(app: FastifyInstance, userId: string): Promise<Subscription | undefined> {
  const now = app.clock.now();
  const stored = await currentSubscription(app.db, userId, now);
  if (!stored) return undefined;
  const row = rolledForward(stored, now);
  if (row !== stored) {
    await app.db
      .updateTable('subscriptions')
      .set({ status: row.status, current_period_end: row.current_period_end, updated_at: now })
      .where('id', '=', row.id)
      .execute();
  }
  return row;
}

/** Start of the billing period the subscription is in (the trial counts as one). */
export function periodStart(subscription: Subscription, now: number): number {
  if (subscription.status === 'trialing' && subscription.trial_start !== null) return subscription.trial_start;
  const end = subscription.current_period_end ?? now;
  return Math.max(subscription.created_at, end - PERIOD_MS);
}

/** Billable and free SMS the user sent since `since`. */
export async function smsUsageSince(app: FastifyInstance, userId: string, since: number) {
  const rows = await app.db
    .selectFrom('usage_records')
    .select('billable')
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .execute();
  const billable = rows.filter((row) => row.billable === 1).length;
  return { billable, free: rows.length - billable };
}

export type PortalAction = { type: 'plan'; plan: PlanName } | { type: 'cancel' } | { type: 'resume' };

/** Applies a portal action to the user's live simulated subscription. */
export async function applyPortalAction(app: FastifyInstance, userId: string, action: PortalAction): Promise<void> {
  const subscription = await settledSubscription(app, userId);
  if (!subscription || subscription.status === 'canceled' || subscription.provider !== 'simulated') {
    throw billingError(400, 'You have no subscription to manage.', 'no_subscription');
  }
  const change =
    action.type === 'plan' ? { plan: action.plan } : { cancel_at_period_end: action.type === 'cancel' ? 1 : 0 };
  await app.db
    .updateTable('subscriptions')
    .set({ ...change, updated_at: app.clock.now() })
    .where('id', '=', subscription.id)
    .execute();
}
