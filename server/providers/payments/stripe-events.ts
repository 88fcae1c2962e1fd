import type Stripe from 'stripe';
import type { PlanName, SubscriptionStatus } from '../../db/schema.js';
import type { PaymentEvent, ProviderSubscription } from './port.js';

export interface PlanPrices {
  basic: string;
  premium: string;
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;
const ms = (seconds: number | null | undefined): number | null => (seconds == null ? null : seconds * 1000);

/** Stripe's statuses in ours; the terminal ones both mean the plan is over. */
function statusOf(status: Stripe.Subscription.Status): SubscriptionStatus {
  if (status === 'incomplete_expired') return 'canceled';
  return status as SubscriptionStatus;
}

/** A Stripe subscription in our terms; the plan comes from its price so portal plan changes count. */
export function toProviderSubscription(
  subscription: Stripe.Subscription,
  prices: PlanPrices,
  deleted = false,
): ProviderSubscription {
  const items = subscription.items?.data ?? [];
  const planItem = items.find((item) => [prices.basic, prices.premium].includes(item.price?.id)) ?? items[0];
  const priceId = planItem?.price?.id;
  const metaPlan = subscription.metadata?.plan;
  const plan: PlanName | null =
    priceId === prices.premium
      ? 'premium'
      : priceId === prices.basic
        ? 'basic'
        : metaPlan === 'basic' || metaPlan === 'premium'
          ? metaPlan
          : null;
  const cancelAt = ms(subscription.cancel_at);
  let periodEnd = ms(planItem?.current_period_end);
  if (cancelAt !== null && (periodEnd === null || cancelAt < periodEnd)) periodEnd = cancelAt;
  return {
    providerSubscriptionId: subscription.id,
    customerId: idOf(subscription.customer),
    userId: subscription.metadata?.user_id ?? null,
    plan,
    status: deleted ? 'canceled' : statusOf(subscription.status),
    trialStart: ms(subscription.trial_start),
    trialEnd: ms(subscription.trial_end),
    periodEnd,
    cancelAtPeriodEnd: subscription.cancel_at_period_end || cancelAt !== null,
  };
}

/** What a Stripe event means for us; the ones we do not act on come back as `ignored`. */
export function translateStripeEvent(event: Stripe.Event, prices: PlanPrices): PaymentEvent {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      if (session.mode !== 'subscription') return { type: 'ignored', name: event.type };
      return {
        type: 'checkout_completed',
        userId: session.client_reference_id ?? null,
        checkoutId: session.metadata?.checkout_id ?? null,
        providerSubscriptionId: idOf(session.subscription),
        customerId: idOf(session.customer),
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return {
        type: 'subscription',
        subscription: toProviderSubscription(event.data.object, prices, event.type === 'customer.subscription.deleted'),
      };
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const subscription = idOf(event.data.object.parent?.subscription_details?.subscription);
      if (!subscription) return { type: 'ignored', name: event.type };
      return {
        type: event.type === 'invoice.paid' ? 'invoice_paid' : 'invoice_failed',
        providerSubscriptionId: subscription,
      };
    }
    default:
      return { type: 'ignored', name: event.type };
  }
}
