/** `GET /api/config/`: the plans' terms as this server is configured, for the app to show. */
import { z } from 'zod';
import { configRoutes } from './routes.js';
import { type Contract, operation, SECURITY } from './shared.js';

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

export const configApi = {
  get: {
    ...configRoutes.get,
    ...operation('getConfig', 'Get the plans’ prices and limits', SECURITY.none),
    tags: ['config'],
    description: 'Prices, contact limits and trial length, public and the same for everyone.',
    response: { 200: publicConfig },
  },
} as const satisfies Contract<typeof configRoutes>;
