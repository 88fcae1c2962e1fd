import type { PlanTerms, PublicConfig } from '../../../common/api/config.js';
import { COUNTDOWN_CHOICES } from '../../../common/constants.js';
import type { Config } from '../../config.js';
import type { PlanName } from '../../db/schema.js';

/** The settings the plans' terms come from. */
export type PlanConfig = Pick<
  Config,
  | 'BASIC_CONTACT_LIMIT'
  | 'PREMIUM_CONTACT_LIMIT'
  | 'BASIC_PRICE_EUR'
  | 'PREMIUM_PRICE_EUR'
  | 'SMS_PRICE_EUR'
  | 'TRIAL_DAYS'
>;

/** What a plan gives and costs, as this server is configured: premium adds GPS and more contacts. */
export function planTerms(config: PlanConfig, plan: PlanName): PlanTerms {
  return plan === 'premium'
    ? { price_eur: config.PREMIUM_PRICE_EUR, contact_limit: config.PREMIUM_CONTACT_LIMIT, gps: true }
    : { price_eur: config.BASIC_PRICE_EUR, contact_limit: config.BASIC_CONTACT_LIMIT, gps: false };
}

/** `GET /api/config/`: every number the app shows about plans, the trial and SMS. */
export function publicConfig(config: PlanConfig): PublicConfig {
  return {
    trial_days: config.TRIAL_DAYS,
    plans: { basic: planTerms(config, 'basic'), premium: planTerms(config, 'premium') },
    sms_price_eur: config.SMS_PRICE_EUR,
    countdown_choices: [...COUNTDOWN_CHOICES],
  };
}
