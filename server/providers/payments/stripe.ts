import Stripe from 'stripe';
import type { Config } from '../../config.js';
import { type PaymentsPort, WebhookError } from './port.js';
import { translateStripeEvent } from './stripe-events.js';

/** Where the SDK sends requests; tests point it at a local fake of the Stripe API. */
export interface StripeEndpoint {
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

type StripeConfig = Pick<
  Config,
  | 'APP_URL'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_PRICE_BASIC'
  | 'STRIPE_PRICE_PREMIUM'
  | 'STRIPE_PRICE_SMS'
  | 'STRIPE_SMS_METER'
>;

/**
 * Stripe Checkout (subscription mode, card always collected, metered SMS price beside
 * the plan), the Billing Portal, signed webhooks and a billing meter for SMS.
 */
export function createStripePayments(config: StripeConfig, endpoint: StripeEndpoint = {}): PaymentsPort {
  const { STRIPE_SECRET_KEY: key, STRIPE_WEBHOOK_SECRET: secret } = config;
  const { STRIPE_PRICE_BASIC: basic, STRIPE_PRICE_PREMIUM: premium } = config;
  if (!key || !secret || !basic || !premium) throw new Error('Stripe needs its key, webhook secret and plan prices');
  const stripe = new Stripe(key, { ...endpoint, maxNetworkRetries: 2, timeout: 20_000, telemetry: false });
  const prices = { basic, premium };

  return {
    name: 'stripe',
    async createCheckout(input) {
      const metadata = { user_id: input.userId, plan: input.plan, checkout_id: input.checkoutId };
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [
            { price: input.plan === 'premium' ? premium : basic, quantity: 1 },
            // Metered: the quantity comes from the meter, so none is given.
            ...(config.STRIPE_PRICE_SMS ? [{ price: config.STRIPE_PRICE_SMS }] : []),
          ],
          subscription_data: {
            metadata,
            ...(input.trialDays ? { trial_period_days: input.trialDays } : {}),
          },
          payment_method_collection: 'always',
          client_reference_id: input.userId,
          ...(input.customerId ? { customer: input.customerId } : input.email ? { customer_email: input.email } : {}),
          metadata,
          success_url: `${config.APP_URL}/?checkout=success`,
          cancel_url: `${config.APP_URL}/cancel`,
        },
        { idempotencyKey: `checkout-${input.checkoutId}` },
      );
      if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
      return { url: session.url, providerSessionId: session.id };
    },

    async createPortal({ customerId }) {
      if (!customerId) throw new Error('A portal needs a Stripe customer');
      const session = await stripe.billingPortal.sessions.create({
        customer: customerId,
        return_url: `${config.APP_URL}/setup`,
      });
      return { url: session.url };
    },

    async changePlan(providerSubscriptionId, plan) {
      const subscription = await stripe.subscriptions.retrieve(providerSubscriptionId);
      const item = subscription.items.data.find((entry) => entry.price.id === basic || entry.price.id === premium);
      if (!item) throw new Error('The Stripe subscription has no plan item');
      await stripe.subscriptions.update(providerSubscriptionId, {
        items: [{ id: item.id, price: prices[plan] }],
        proration_behavior: 'create_prorations',
        metadata: { plan },
      });
    },

    async cancelNow(providerSubscriptionId) {
      try {
        // The final invoice carries the metered SMS used so far (and prorates the plan).
        await stripe.subscriptions.cancel(providerSubscriptionId, { invoice_now: true, prorate: true });
      } catch (error) {
        // Already gone at Stripe: nothing left to cancel.
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing') return;
        throw error;
      }
    },

    async reportUsage({ deliveryId, customerId, at, parts = 1 }) {
      if (!config.STRIPE_SMS_METER) return false;
      await stripe.billing.meterEvents.create({
        event_name: config.STRIPE_SMS_METER,
        // One event per SMS, valued in SMS parts: a 4-part message is billed as 4.
        payload: { stripe_customer_id: customerId, value: String(Math.max(1, parts)) },
        // Stripe keeps one meter event per identifier, so a retried report never bills twice.
        identifier: deliveryId,
        timestamp: Math.floor(at / 1000),
      });
      return true;
    },

    verifyWebhook(raw, signature) {
      if (!signature) throw new WebhookError('Missing Stripe-Signature header.');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(raw, signature, secret);
      } catch (error) {
        throw new WebhookError(error instanceof Error ? error.message : 'Invalid signature.');
      }
      return { id: event.id, createdAt: event.created * 1000, event: translateStripeEvent(event, prices) };
    },
  };
}
