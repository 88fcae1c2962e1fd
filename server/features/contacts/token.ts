import type { FastifyInstance } from 'fastify';
import type { User } from '../../db/schema.js';
import { detailError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import {
  consumeAllOneTimeTokens,
  consumeOneTimeToken,
  findOneTimeToken,
  replaceToken,
} from '../accounts/repository.js';
import { subscriptionProfile } from '../billing/subscriptions.js';

export const SUBSCRIPTION_REQUIRED = 'An active subscription is required.';
/** New links a person can make per hour from the app. */
export const ROTATIONS_PER_HOUR = 5;

/**
 * Replaces a user's personal alert token (when they have one): the old links stop working the
 * moment this commits, and so does every "this wasn't me" link already mailed (whoever holds an
 * old e-mail cannot replace the new links).
 */
export async function rotateToken(app: FastifyInstance, userId: string): Promise<string> {
  const token = randomToken(24);
  await app.db.transaction().execute(async (trx) => {
    await replaceToken(trx, userId, token);
    await consumeAllOneTimeTokens(trx, userId, 'rotate_token', app.clock.now());
  });
  return token;
}

/** The owner's own rotation from the app: only while subscribed. */
export async function rotateOwnToken(app: FastifyInstance, user: User): Promise<string> {
  const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
  if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
  return rotateToken(app, user.id);
}

const notMeKey = (app: FastifyInstance, key: string) =>
  key.length <= 200 ? findOneTimeToken(app.db, key, 'rotate_token') : Promise.resolve(undefined);

/**
 * What a "this wasn't me" key from the owner's alert e-mail is now: `usable`, `used` (spent,
 * or the links were replaced since it was mailed) or `unknown` (never made, or expired).
 */
export type NotMeKeyState = 'usable' | 'used' | 'unknown';

export async function notMeKeyState(app: FastifyInstance, key: string): Promise<NotMeKeyState> {
  const row = await notMeKey(app, key);
  if (!row || row.expires_at <= app.clock.now()) return 'unknown';
  return row.used_at === null ? 'usable' : 'used';
}

/** Spends a "this wasn't me" key and replaces its owner's token; `rotated`, or why it could not. */
export async function rotateByNotMeKey(app: FastifyInstance, key: string): Promise<'rotated' | NotMeKeyState> {
  const now = app.clock.now();
  const row = await notMeKey(app, key);
  if (!row || row.expires_at <= now) return 'unknown';
  if (!(await consumeOneTimeToken(app.db, row.id, now))) return 'used';
  await rotateToken(app, row.user_id);
  return 'rotated';
}
