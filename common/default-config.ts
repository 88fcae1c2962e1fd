import type { PublicConfig } from './api/config.js';
import { COUNTDOWN_CHOICES, PLAN_CONTACT_LIMITS, PLAN_PRICES_EUR, SMS_PRICE_EUR, TRIAL_DAYS } from './constants.js';

// Apart from the contract's schemas (common/api/config.ts): the app's first script carries these
// numbers, and zod's schemas would bring zod, whose check for eval the page's CSP refuses.
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
