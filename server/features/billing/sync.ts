import type { Transaction } from 'kysely';
import type { Database, Subscription } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { newId } from '../../lib/ids.js';
import { DAY } from '../../lib/time.js';
import type { ProviderSubscription, WebhookEvent } from '../../providers/payments/port.js';
import {
  findCheckout,
  insertSubscription,
  recordEvent,
  setCheckoutStatus,
  subscriptionByProviderId,
  trialUsedAt,
  updateSubscription,
  userOfCustomer,
} from './repository.js';
import { isActive, markActivated, PERIOD_MS } from './subscriptions.js';

type Trx = Transaction<Database>;

/**
 * Applies one verified provider event, once: the event id is recorded in the same
 * transaction as its effect, so a replay (or a concurrent duplicate) changes nothing
 * and a failure leaves it to the provider's retry. Returns false for a replay.
 */
export async function applyWebhookEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'payments' | 'log'>,
  webhook: WebhookEvent,
): Promise<boolean> {
  const provider = deps.payments.name;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    if (!(await recordEvent(trx, webhook.id, provider, now))) return false;
    const { event } = webhook;
    if (event.type === 'subscription') {
      await upsertSubscription(trx, provider, event.subscription, webhook.createdAt, now);
    } else if (event.type === 'checkout_completed') {
      await completeCheckout(trx, provider, event, webhook.createdAt, now, deps.config.TRIAL_DAYS);
    } else if (event.type === 'ignored') {
      deps.log.debug({ event: event.name }, 'payment event ignored');
    } else {
      await applyInvoice(trx, event.type, event.providerSubscriptionId, webhook.createdAt, now);
    }
    return true;
  });
}

/** An event older than the last one applied to the row, or one that would revive an ended subscription. */
function stale(row: Subscription, eventAt: number, status?: Subscription['status']): boolean {
  if (row.provider_event_at !== null && eventAt < row.provider_event_at) return true;
  // A provider never revives a cancelled subscription; a late "active" must not either.
  return row.status === 'canceled' && status !== 'canceled';
}

/** The user id when that user (still) exists, else null. */
async function existingUser(trx: Trx, userId: string | null | undefined): Promise<string | null> {
  if (!userId) return null;
  return (await trialUsedAt(trx, userId)) === undefined ? null : userId;
}

/** Creates or updates our row from the provider's view of the subscription. */
async function upsertSubscription(trx: Trx, provider: string, sub: ProviderSubscription, eventAt: number, now: number) {
  const row = await subscriptionByProviderId(trx, sub.providerSubscriptionId);
  if (row && stale(row, eventAt, sub.status)) return;
  let candidate = row?.user_id ?? sub.userId;
  if (!candidate && sub.customerId) candidate = await userOfCustomer(trx, sub.customerId);
  const userId = await existingUser(trx, candidate);
  if (!userId) return;
  const state = {
    provider_customer_id: sub.customerId ?? row?.provider_customer_id ?? null,
    plan: sub.plan ?? row?.plan ?? 'premium',
    status: sub.status,
    trial_start: sub.trialStart,
    trial_end: sub.trialEnd,
    current_period_end: sub.periodEnd,
    cancel_at_period_end: sub.cancelAtPeriodEnd ? 1 : 0,
    updated_at: now,
    provider_event_at: Math.max(eventAt, row?.provider_event_at ?? 0),
  };
  if (row) {
    await updateSubscription(trx, row.id, state);
  } else {
    await insertSubscription(trx, {
      id: newId(),
      user_id: userId,
      provider,
      provider_subscription_id: sub.providerSubscriptionId,
      created_at: now,
      ...state,
    });
  }
  const live = isActive({ ...(row ?? ({} as Subscription)), ...state }, now);
  if (live) await markActivated(trx, userId, sub.trialStart);
}

/**
 * A finished checkout: marks it paid and, when the subscription's own events have not
 * arrived yet, records it from the checkout so the user is active at once; those events
 * then refine it whatever their order.
 */
async function completeCheckout(
  trx: Trx,
  provider: string,
  event: {
    userId: string | null;
    checkoutId: string | null;
    providerSubscriptionId: string | null;
    customerId: string | null;
  },
  eventAt: number,
  now: number,
  trialDays: number,
) {
  const checkout = event.checkoutId ? await findCheckout(trx, event.checkoutId) : undefined;
  if (checkout) await setCheckoutStatus(trx, checkout.id, 'paid');
  const userId = await existingUser(trx, checkout?.user_id ?? event.userId);
  if (!event.providerSubscriptionId || !userId) return;
  const row = await subscriptionByProviderId(trx, event.providerSubscriptionId);
  if (row) {
    if (isActive(row, now)) await markActivated(trx, row.user_id, row.trial_start);
    return;
  }
  const trial = checkout?.with_trial === 1 && (await trialUsedAt(trx, userId)) === null;
  const trialEnd = trial ? eventAt + trialDays * DAY : null;
  await insertSubscription(trx, {
    id: newId(),
    user_id: userId,
    provider,
    provider_customer_id: event.customerId,
    provider_subscription_id: event.providerSubscriptionId,
    plan: checkout?.plan ?? 'premium',
    status: trialEnd ? 'trialing' : 'active',
    trial_start: trialEnd ? eventAt : null,
    trial_end: trialEnd,
    current_period_end: trialEnd ?? eventAt + PERIOD_MS,
    cancel_at_period_end: 0,
    created_at: now,
    updated_at: now,
    // No provider event stamp: the subscription's own events, even earlier ones, know better.
    provider_event_at: null,
  });
  await markActivated(trx, userId, trialEnd ? eventAt : null);
}

/** A paid invoice brings a past-due subscription back; a failed one makes it past due. */
async function applyInvoice(
  trx: Trx,
  type: 'invoice_paid' | 'invoice_failed',
  id: string,
  eventAt: number,
  now: number,
) {
  const row = await subscriptionByProviderId(trx, id);
  if (!row || stale(row, eventAt)) return;
  const from = type === 'invoice_paid' ? ['past_due', 'unpaid', 'incomplete'] : ['active', 'trialing'];
  if (!from.includes(row.status)) return;
  await updateSubscription(trx, row.id, {
    status: type === 'invoice_paid' ? 'active' : 'past_due',
    updated_at: now,
    provider_event_at: Math.max(eventAt, row.provider_event_at ?? 0),
  });
}
