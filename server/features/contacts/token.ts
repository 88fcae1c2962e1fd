import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import {
  consumeAllOneTimeTokens,
  consumeOneTimeToken,
  endAllDeviceKeys,
  findOneTimeToken,
  replaceToken,
} from '../accounts/index.js';
import { subscriptionProfile } from '../billing/index.js';

export const SUBSCRIPTION_REQUIRED = 'An active subscription is required.';
/** New links a person can make per hour from the app. */
export const ROTATIONS_PER_HOUR = 5;

/**
 * Replaces a user's personal alert token (when they have one): the old links stop working the
 * moment this commits, and so does every "this wasn't me" link already mailed (whoever holds an
 * old e-mail cannot replace the new links) and every device key (whoever copied the link may
 * have copied a key beside it; the owner's devices get new ones when signed in again).
 */
export async function rotateToken(deps: Pick<Deps, 'db' | 'clock'>, userId: string): Promise<string> {
  const token = randomToken(24);
  await deps.db.transaction().execute(async (trx) => {
    await replaceToken(trx, userId, token);
    await consumeAllOneTimeTokens(trx, userId, 'rotate_token', deps.clock.now());
    await endAllDeviceKeys(trx, userId);
  });
  return token;
}

/** The owner's own rotation from the app: only while subscribed. */
export async function rotateOwnToken(deps: Pick<Deps, 'db' | 'clock' | 'config'>, user: User): Promise<string> {
  const profile = await subscriptionProfile(deps.db, user, deps.clock.now(), deps.config);
  if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
  return rotateToken(deps, user.id);
}

const notMeKey = (deps: Pick<Deps, 'db'>, key: string) =>
  key.length <= 200 ? findOneTimeToken(deps.db, key, 'rotate_token') : Promise.resolve(undefined);

/**
 * What a "this wasn't me" key from the owner's alert e-mail is now: `usable`, `used` (spent,
 * or the links were replaced since it was mailed) or `unknown` (never made, or expired).
 */
export type NotMeKeyState = 'usable' | 'used' | 'unknown';

export async function notMeKeyState(deps: Pick<Deps, 'db' | 'clock'>, key: string): Promise<NotMeKeyState> {
  const row = await notMeKey(deps, key);
  if (!row || row.expires_at <= deps.clock.now()) return 'unknown';
  return row.used_at === null ? 'usable' : 'used';
}

/** Spends a "this wasn't me" key and replaces its owner's token; `rotated`, or why it could not. */
export async function rotateByNotMeKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  key: string,
): Promise<'rotated' | NotMeKeyState> {
  const now = deps.clock.now();
  const row = await notMeKey(deps, key);
  if (!row || row.expires_at <= now) return 'unknown';
  if (!(await consumeOneTimeToken(deps.db, row.id, now))) return 'used';
  await rotateToken(deps, row.user_id);
  return 'rotated';
}
