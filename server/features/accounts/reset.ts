import type { FastifyInstance } from 'fastify';
import type { Language } from '../../../common/constants.js';
import { PASSWORD_ERRORS } from '../../../common/password-rules.js';
import { detailError } from '../../lib/errors.js';
import { objectBody, Problems, requiredString } from './fields.js';
import { resetMail } from './mail.js';
import { checkPassword, hashPassword } from './passwords.js';
import { PASSWORD_MAX } from './registration.js';
import {
  consumeAllOneTimeTokens,
  consumeOneTimeToken,
  createOneTimeToken,
  findByEmail,
  findById,
  findOneTimeToken,
  revokeAllSessions,
} from './repository.js';

export const RESET_TEXTS = {
  invalidToken: 'Invalid or expired token.',
  invalidUser: 'Invalid user.',
  done: 'Password has been reset with the new password.',
} as const;

/** Reset links work for 1 hour. */
export const RESET_TTL_MS = 60 * 60 * 1000;

/** The web app's page the e-mail links to. */
export const resetLink = (app: FastifyInstance, uid: string, token: string) =>
  `${app.config.APP_URL}/reset-password-confirm/${encodeURIComponent(uid)}/${token}`;

/**
 * Mails a reset link when an account uses the address; silent otherwise. The route runs
 * it after the answer (app.background), so neither the answer nor its timing tells them apart.
 */
export async function requestReset(app: FastifyInstance, email: string, language: (saved: string) => Language) {
  const user = await findByEmail(app.db, email);
  if (!user?.email) return;
  const token = await createOneTimeToken(app.db, {
    userId: user.id,
    purpose: 'reset_password',
    now: app.clock.now(),
    ttlMs: RESET_TTL_MS,
  });
  const message = resetMail(language(user.language), user.email, user.username, resetLink(app, user.id, token));
  await app.mail.send(message).catch((error: Error) => {
    app.log.error({ reason: error.message }, 'password reset e-mail could not be sent');
  });
}

/**
 * Sets a new password from a reset link: the link works once, for an hour, and only
 * while the password has not changed since it was sent. Every session ends; the
 * address counts as verified, since the mail reached its owner.
 */
export async function confirmReset(app: FastifyInstance, body: unknown): Promise<void> {
  const data = objectBody(body);
  const problems = new Problems();
  const uid = requiredString(data, 'uid', problems, { trim: true });
  const token = requiredString(data, 'token', problems, { trim: true });
  const password1 = requiredString(data, 'new_password1', problems, { max: PASSWORD_MAX });
  const password2 = requiredString(data, 'new_password2', problems, { max: PASSWORD_MAX });
  problems.throwIfAny({ withDetail: true });

  // Ids are UUIDs; anything else matches nobody (and a NUL would upset PostgreSQL).
  const user = /^[\w-]{1,64}$/.test(uid!) ? await findById(app.db, uid!) : undefined;
  if (!user) throw detailError(400, RESET_TEXTS.invalidUser, 'invalid_user');
  const now = app.clock.now();
  const row = token!.length <= 200 ? await findOneTimeToken(app.db, token!, 'reset_password') : undefined;
  const valid =
    row !== undefined &&
    row.user_id === user.id &&
    row.used_at === null &&
    row.expires_at > now &&
    row.created_at >= user.password_changed_at;
  if (!valid) throw detailError(400, RESET_TEXTS.invalidToken, 'invalid_token');

  for (const message of checkPassword(password1!)) problems.add('new_password1', message);
  if (password1 !== password2) problems.add('new_password2', PASSWORD_ERRORS.mismatch);
  problems.throwIfAny({ withDetail: true });

  const passwordHash = await hashPassword(password1!);
  const changed = await app.db.transaction().execute(async (trx) => {
    // Claimed first, so two requests racing with one link change the password once.
    if (!(await consumeOneTimeToken(trx, row.id, now))) return false;
    await consumeAllOneTimeTokens(trx, user.id, 'reset_password', now);
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_changed_at: now, email_verified: 1 })
      .where('id', '=', user.id)
      .execute();
    await revokeAllSessions(trx, user.id, now);
    return true;
  });
  if (!changed) throw detailError(400, RESET_TEXTS.invalidToken, 'invalid_token');
}
