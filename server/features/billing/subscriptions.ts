import type { Kysely } from 'kysely';
import type { Database, Db, PlanName, Subscription, User } from '../../db/schema.js';
import { newId, randomToken } from '../../lib/ids.js';
import { DAY } from '../../lib/time.js';
import { type PlanConfig, planTerms } from './plans.js';
import { insertSubscription, markTrialUsed, setTokenIfMissing, userSubscriptions } from './repository.js';

export type { Db };
/** Length of a paid billing period. */
export const PERIOD_MS = 30 * DAY;

/** The profile fields `/me` derives from the subscription state (DESIGN.md §3). */
export interface SubscriptionProfile {
  has_premium: boolean;
  is_in_trial: boolean;
  trial_days_left: number;
  trial_start: string | null;
  has_used_trial: boolean;
  plan: PlanName | null;
  contact_limit: number;
  gps_enabled: boolean;
}

/**
 * Whether a subscription gives access at `now`. Trialing, active and past-due
 * subscriptions do (the provider decides when a past-due one ends); one set to cancel
 * stops at the end of its trial or period. An uncancelled trial that has run out has
 * renewed into paid premium.
 */
export function isActive(subscription: Subscription, now: number): boolean {
  if (!['trialing', 'active', 'past_due'].includes(subscription.status)) return false;
  const end = subscription.status === 'trialing' ? subscription.trial_end : subscription.current_period_end;
  return !(subscription.cancel_at_period_end && end !== null && now >= end);
}

/** True while the subscription is in its trial at `now`. */
export function isInTrial(subscription: Subscription, now: number): boolean {
  return (
    isActive(subscription, now) &&
    subscription.status === 'trialing' &&
    subscription.trial_end !== null &&
    now < subscription.trial_end
  );
}

/** The user's subscription that counts: the newest active one, else the newest. */
export async function currentSubscription(db: Db, userId: string, now: number): Promise<Subscription | undefined> {
  return currentOf(await userSubscriptions(db, userId), now);
}

/** Of a user's subscriptions, newest first: the active one, else the latest. */
export const currentOf = (rows: Subscription[], now: number): Subscription | undefined =>
  rows.find((row) => isActive(row, now)) ?? rows[0];

/** Derives the `/me` profile fields from the user and their subscription at `now`. */
export function profileOf(
  user: Pick<User, 'trial_used_at'>,
  subscription: Subscription | undefined,
  now: number,
  config: PlanConfig,
): SubscriptionProfile {
  const active = subscription !== undefined && isActive(subscription, now);
  const plan = active ? subscription.plan : null;
  const inTrial = subscription !== undefined && isInTrial(subscription, now);
  const trialStart = user.trial_used_at ?? subscription?.trial_start ?? null;
  const terms = plan ? planTerms(config, plan) : undefined;
  return {
    has_premium: active,
    is_in_trial: inTrial,
    trial_days_left: inTrial && subscription.trial_end ? Math.ceil((subscription.trial_end - now) / DAY) : 0,
    trial_start: trialStart === null ? null : new Date(trialStart).toISOString(),
    has_used_trial: user.trial_used_at !== null,
    plan,
    contact_limit: terms?.contact_limit ?? 0,
    gps_enabled: terms?.gps ?? false,
  };
}

/** Loads the subscription and derives the profile in one call. */
export async function subscriptionProfile(
  db: Db,
  user: Pick<User, 'id' | 'trial_used_at'>,
  now: number,
  config: PlanConfig,
): Promise<SubscriptionProfile> {
  return profileOf(user, await currentSubscription(db, user.id, now), now, config);
}

/** Gives the user a personal alert token (≥128 random bits, URL-safe) unless they have one. */
export async function issueTokenIfMissing(db: Db, userId: string): Promise<void> {
  await setTokenIfMissing(db, userId, randomToken(24));
}

export interface ActivateOptions {
  userId: string;
  plan: PlanName;
  now: number;
  /** Trial length in days; the subscription starts trialing and the user's trial is used up. */
  trialDays?: number;
  provider?: string;
  providerCustomerId?: string | null;
  providerSubscriptionId?: string | null;
  /** Length of a paid period (ms), default 30 days. */
  periodMs?: number;
}

/**
 * Records an active subscription (trialing when `trialDays` is given), marks the trial
 * used, and issues the personal token: what a successful checkout does, on any provider.
 */
export async function activateSubscription(db: Kysely<Database>, options: ActivateOptions): Promise<Subscription> {
  const { userId, plan, now } = options;
  const trialEnd = options.trialDays ? now + options.trialDays * DAY : null;
  const row: Subscription = {
    id: newId(),
    user_id: userId,
    provider: options.provider ?? 'simulated',
    provider_customer_id: options.providerCustomerId ?? null,
    provider_subscription_id: options.providerSubscriptionId ?? null,
    plan,
    status: trialEnd ? 'trialing' : 'active',
    trial_start: trialEnd ? now : null,
    trial_end: trialEnd,
    current_period_end: trialEnd ?? now + (options.periodMs ?? PERIOD_MS),
    cancel_at_period_end: 0,
    created_at: now,
    updated_at: now,
    provider_event_at: null,
  };
  await db.transaction().execute(async (trx) => {
    await insertSubscription(trx, row);
    await markActivated(trx, userId, row.trial_start);
  });
  return row;
}

/**
 * What any activation does once a subscription is live: the trial counts as used when
 * one started (never a second one), and the personal token is issued.
 */
export async function markActivated(db: Db, userId: string, trialStart: number | null): Promise<void> {
  if (trialStart !== null) await markTrialUsed(db, userId, trialStart);
  await issueTokenIfMissing(db, userId);
}
