/** `GET /api/config/`: the plans' terms as this server is configured, for the app to show. */
import { z } from 'zod';
import { COUNTDOWN_CHOICES, PLAN_CONTACT_LIMITS, PLAN_PRICES_EUR, SMS_PRICE_EUR, TRIAL_DAYS } from '../constants.js';
import { configRoutes } from './routes.js';
import type { Contract } from './shared.js';

const euros = z.number().min(0);

export const planTerms = z
  .object({
    price_eur: euros.describe('Monthly price (EUR).'),
    contact_limit: z.number().int().min(1).describe('Contacts alerted on this plan.'),
    gps: z.boolean().describe('Whether alerts carry the GPS location.'),
  })
  .meta({ id: 'PlanTerms' });

export const publicConfig = z
  .object({
    trial_days: z.number().int().min(1).describe('Length of the free premium trial (days), card required.'),
    plans: z.object({ basic: planTerms, premium: planTerms }),
    sms_price_eur: euros.describe('Price of each SMS sent (EUR).'),
    countdown_choices: z.array(z.number().int().min(0)).describe('Alert countdowns one may choose (seconds).'),
  })
  .meta({ id: 'PublicConfig' });

export type PlanTerms = z.output<typeof planTerms>;
export type PublicConfig = z.output<typeof publicConfig>;

/**
 * The terms of a server left at its defaults: what the app shows until the server's own arrive
 * (or while offline), and what the build draws the pricing page with.
 */
export const DEFAULT_PUBLIC_CONFIG: PublicConfig = {
  trial_days: TRIAL_DAYS,
  plans: {
    basic: { price_eur: PLAN_PRICES_EUR.basic, contact_limit: PLAN_CONTACT_LIMITS.basic, gps: false },
    premium: { price_eur: PLAN_PRICES_EUR.premium, contact_limit: PLAN_CONTACT_LIMITS.premium, gps: true },
  },
  sms_price_eur: SMS_PRICE_EUR,
  countdown_choices: [...COUNTDOWN_CHOICES],
};

export const configApi = {
  get: {
    ...configRoutes.get,
    tags: ['config'],
    description: 'Prices, contact limits and trial length, public and the same for everyone.',
    response: { 200: publicConfig },
  },
} as const satisfies Contract<typeof configRoutes>;
