import type { FastifyInstance } from 'fastify';
import type { User } from '../../db/schema.js';
import { detailError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import { consumeOneTimeToken, findOneTimeToken, replaceToken } from '../accounts/repository.js';
import { subscriptionProfile } from '../billing/subscriptions.js';

export const SUBSCRIPTION_REQUIRED = 'An active subscription is required.';
/** New links a person can make per hour from the app. */
export const ROTATIONS_PER_HOUR = 5;

/** Replaces a user's personal alert token (when they have one): the old links stop working the moment this commits. */
export async function rotateToken(app: FastifyInstance, userId: string): Promise<string> {
  const token = randomToken(24);
  await replaceToken(app.db, userId, token);
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

/** Whether a "this wasn't me" key from the owner's alert e-mail can still be used. */
export async function notMeKeyUsable(app: FastifyInstance, key: string): Promise<boolean> {
  const row = await notMeKey(app, key);
  return row !== undefined && row.used_at === null && row.expires_at > app.clock.now();
}

/** Spends a "this wasn't me" key and replaces its owner's token; false when the key is unknown, used or expired. */
export async function rotateByNotMeKey(app: FastifyInstance, key: string): Promise<boolean> {
  const now = app.clock.now();
  const row = await notMeKey(app, key);
  if (!row || row.expires_at <= now || !(await consumeOneTimeToken(app.db, row.id, now))) return false;
  await rotateToken(app, row.user_id);
  return true;
}
