import { asLanguage } from '../../../common/constants.js';
import type { AlertLanguage } from '../../../common/sms-text.js';
import type { Db, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { type SubscriptionProfile, subscriptionProfile } from '../billing/index.js';
import { ownerByToken } from './repository.js';

// Who a personal alert token belongs to, and whether that owner may alert now: the answers
// (404, 402, 403) an alert request gets before its body is looked at.

const UNKNOWN_TOKEN = 'This alert link is unknown or has been replaced by a new one.';
const SUBSCRIPTION_REQUIRED = 'An active subscription is required to send alerts.';
const EMAIL_NOT_VERIFIED = 'Confirm your e-mail address before your contacts can be alerted.';

/** What finding a token's owner and their plan needs. */
export type OwnerDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

/** A token's owner with the plan that decides what their alerts carry. */
export interface TokenOwner {
  user: User;
  profile: SubscriptionProfile;
}

/** The language of the owner's SMS and pages. */
export const ownerLanguage = (user: Pick<User, 'language'>): AlertLanguage => asLanguage(user.language);

/** The answer to a token that is unknown or was rotated. */
export const unknownToken = () => detailError(404, UNKNOWN_TOKEN, 'not_found');

/** The owner of a token, whatever their plan: 404 for an unknown or rotated token. */
export async function ownerOf(deps: Pick<Deps, 'db'>, token: string): Promise<User> {
  const user = await ownerByToken(deps.db, token);
  if (!user) throw unknownToken();
  return user;
}

/** The token's owner with their plan as it is now, whatever it is: 404 for an unknown token. */
export async function ownerWithPlan(deps: OwnerDeps, token: string): Promise<TokenOwner> {
  const user = await ownerOf(deps, token);
  return { user, profile: await subscriptionProfile(deps.db, user, deps.clock.now(), deps.config) };
}

/** The owner with an active subscription, else 402. */
function active(owner: TokenOwner): TokenOwner {
  if (!owner.profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
  return owner;
}

/** The owner an alert may be sent for: active, and with a confirmed e-mail address (403 otherwise). */
function alerting(owner: TokenOwner): TokenOwner {
  if (!active(owner).user.email_verified) throw detailError(403, EMAIL_NOT_VERIFIED, 'email_not_verified');
  return owner;
}

/** The token's owner with an active subscription: 404 for an unknown token, 402 without a plan. */
export const activeOwner = async (deps: OwnerDeps, token: string) => active(await ownerWithPlan(deps, token));

/**
 * The owner a request with an Idempotency-Key is for (an alert, a check-in), with what the key
 * already made (`replay`, found by `used` as the contract stores keys: trimmed and lowercased).
 * A key already used answers what it made whatever has changed since (a plan that lapsed, a new
 * e-mail address): the replay is the same request, so only an unknown token (404) stops it. A
 * new one needs an active plan and a confirmed e-mail address (402, 403).
 */
export async function requestingOwner<T>(
  deps: OwnerDeps,
  token: string,
  key: unknown,
  used: (db: Db, userId: string, key: string) => Promise<T | undefined>,
): Promise<TokenOwner & { replay: T | undefined }> {
  const owner = await ownerWithPlan(deps, token);
  const stored = storedKey(key);
  return admitted(owner, stored === null ? undefined : await used(deps.db, owner.user.id, stored));
}

/** An Idempotency-Key header as the contract stores it (trimmed, lowercased); null when there is none. */
export const storedKey = (key: unknown): string | null =>
  typeof key === 'string' && key.trim() ? key.trim().toLowerCase() : null;

/** A request whose key made `replay` passes whatever changed since; a new one needs the owner alerting. */
export const admitted = <T>(owner: TokenOwner, replay: T | undefined): TokenOwner & { replay: T | undefined } => ({
  ...(replay === undefined ? alerting(owner) : owner),
  replay,
});
