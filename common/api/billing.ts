/**
 * Billing routes of DESIGN.md §3: request and response schemas. Billing
 * refusals are `{"error": text, "code": code}`, the shape the pricing and trial pages show.
 */
import { z } from 'zod';
import { refusedAs } from './errors.js';
import { billingRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

export const PLANS = ['basic', 'premium'] as const;
export const plan = z.enum(PLANS);
export type Plan = z.output<typeof plan>;

export const INVALID_PLAN = 'Choose a plan: basic or premium.';

/** What checkout and plan change send; anything else is refused with `invalid_plan` in the billing shape. */
export const planChoice = refusedAs(z.object({ plan }).meta({ id: 'PlanChoice' }), {
  error: INVALID_PLAN,
  plan: [INVALID_PLAN],
  code: 'invalid_plan',
  codes: { plan: 'invalid_plan' },
});

/** Where to send the browser: the provider's checkout or portal (the simulated one under /dev/). */
export const redirectUrl = z.object({ url: z.string() }).meta({ id: 'RedirectUrl' });

export const webhookReceipt = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().describe('True when this event was applied before: nothing changed.'),
  })
  .meta({ id: 'WebhookReceipt' });

const billing = { tags: ['billing'] } as const;

export const billingApi = {
  checkout: {
    ...billingRoutes.checkout,
    ...operation('startCheckout', 'Open a checkout for a plan', SECURITY.session),
    ...billing,
    description:
      'Opens a checkout for the plan and answers where to send the browser. A first premium checkout carries the free trial (card required).',
    body: planChoice,
    response: { 200: redirectUrl, ...errorResponses(400, 401, 429, 502) },
  },
  changePlan: {
    ...billingRoutes.changePlan,
    ...operation('changePlan', 'Move a subscription to the other plan', SECURITY.session),
    ...billing,
    description: 'A subscriber moves to the other plan at once (the provider prorates the difference).',
    body: planChoice,
    response: { 200: planChoice, ...errorResponses(400, 401, 429, 502) },
  },
  portal: {
    ...billingRoutes.portal,
    ...operation('openBillingPortal', 'Open the page to manage the subscription', SECURITY.session),
    ...billing,
    description: 'Opens the page where a subscriber changes plan or cancels; answers where to send the browser.',
    response: { 200: redirectUrl, ...errorResponses(400, 401, 429, 502) },
  },
  webhook: {
    ...billingRoutes.webhook,
    ...operation('receivePaymentEvent', 'Receive a payment event (Stripe)', SECURITY.stripe),
    tags: ['billing'],
    description:
      'The payment provider’s events (Stripe). The body is the raw event exactly as sent, verified against its `Stripe-Signature` header before anything is read from it; each event is applied once.',
    response: { 200: webhookReceipt, ...errorResponses(400) },
  },
} as const satisfies Contract<typeof billingRoutes>;
