import type { Config } from '../../config.js';
import type { PaymentsPort } from './port.js';
import { createSimulatedPayments } from './simulated.js';
import { createStripePayments } from './stripe.js';

/** Stripe when STRIPE_SECRET_KEY is set, otherwise the simulated checkout of this server. */
export function createPayments(config: Config, now: () => number): PaymentsPort {
  return config.STRIPE_SECRET_KEY ? createStripePayments(config) : createSimulatedPayments(now);
}
