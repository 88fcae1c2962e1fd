import type { PlanName, SubscriptionStatus } from '../../db/schema.js';

export interface CheckoutInput {
  /** Our checkout_sessions row id. */
  checkoutId: string;
  userId: string;
  email: string | null;
  plan: PlanName;
  /** Trial length in days when the checkout carries the trial, else null. */
  trialDays: number | null;
  /** The provider customer of an earlier subscription, reused so one person is one customer. */
  customerId: string | null;
}

/** A subscription as the provider describes it, in our terms. Times are epoch ms. */
export interface ProviderSubscription {
  providerSubscriptionId: string;
  customerId: string | null;
  /** Our user id, from the metadata we attached at checkout. */
  userId: string | null;
  plan: PlanName | null;
  status: SubscriptionStatus;
  trialStart: number | null;
  trialEnd: number | null;
  periodEnd: number | null;
  cancelAtPeriodEnd: boolean;
}

/** What a verified webhook event means for us, whatever the provider. */
export type PaymentEvent =
  | {
      type: 'checkout_completed';
      userId: string | null;
      checkoutId: string | null;
      providerSubscriptionId: string | null;
      customerId: string | null;
    }
  | { type: 'subscription'; subscription: ProviderSubscription }
  | { type: 'invoice_paid' | 'invoice_failed'; providerSubscriptionId: string }
  | { type: 'ignored'; name: string };

export interface WebhookEvent {
  id: string;
  /** When the provider created the event (epoch ms): orders events that arrive out of order. */
  createdAt: number;
  event: PaymentEvent;
}

/** A signature that does not verify, or a body that is not an event. */
export class WebhookError extends Error {}

/** Takes payments; route code never knows which adapter runs. */
export interface PaymentsPort {
  readonly name: 'simulated' | 'stripe';
  /** Opens a hosted checkout and answers where to send the browser. */
  createCheckout(input: CheckoutInput): Promise<{ url: string; providerSessionId: string | null }>;
  /** Opens the page where the customer changes plan or cancels. */
  createPortal(input: { userId: string; customerId: string | null }): Promise<{ url: string }>;
  /** Moves a live subscription to another plan at once (upgrade or downgrade, prorated by the provider). */
  changePlan(providerSubscriptionId: string, plan: PlanName): Promise<void>;
  /** Ends a subscription at once (account deletion), invoicing the metered usage; a subscription already gone is not an error. */
  cancelNow(providerSubscriptionId: string): Promise<void>;
  /** Reports one sent SMS of `parts` parts (the meter counts parts) to metered billing; false when the provider keeps no meter (the usage row is the record). */
  reportUsage(input: { deliveryId: string; customerId: string; at: number; parts?: number }): Promise<boolean>;
  /** Verifies a webhook on its raw body and translates it; throws WebhookError. */
  verifyWebhook(raw: Buffer, signature: string | undefined): WebhookEvent;
  close?(): Promise<void>;
}
