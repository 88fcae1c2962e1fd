import type { z } from 'zod';
import { newPasswordCheck, type resetConfirmRequest } from '../../../common/api/accounts.js';
import type { Language } from '../../../common/constants.js';
import { asLanguage } from '../../../common/constants.js';
import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { detailError, parseWith } from '../../lib/errors.js';
import { HOUR } from '../../lib/time.js';
import { commonPasswords } from './common-passwords.js';
import { mailTime, resetMail, resetSummaryMail } from './mail.js';
import { noteMailEvent } from './mail-bursts.js';
import { hashPassword } from './passwords.js';
import {
  consumeAllOneTimeTokens,
  consumeOneTimeToken,
  createOneTimeToken,
  findByEmail,
  findById,
  findOneTimeToken,
  revokeAllSessions,
  updateUser,
} from './repository.js';

export const RESET_TEXTS = {
  invalidToken: 'Invalid or expired token.',
  invalidUser: 'Invalid user.',
  done: 'Password has been reset with the new password.',
} as const;

let newPassword: ReturnType<typeof newPasswordCheck> | undefined;

/** Reset links work for 1 hour. */
export const RESET_TTL_MS = HOUR;

/** The web app's page the e-mail links to. */
export const resetLink = (deps: Pick<Deps, 'config'>, uid: string, token: string) =>
  `${deps.config.APP_URL}/reset-password-confirm/${encodeURIComponent(uid)}/${token}`;

/** A new reset link for the user (it works for RESET_TTL_MS). */
async function newResetLink(deps: Pick<Deps, 'db' | 'clock' | 'config'>, userId: string): Promise<string> {
  const token = await createOneTimeToken(deps.db, {
    userId,
    purpose: 'reset_password',
    now: deps.clock.now(),
    ttlMs: RESET_TTL_MS,
  });
  return resetLink(deps, userId, token);
}

/**
 * Mails a reset link when an account uses the address; silent otherwise. Anyone can ask for an
 * address, so its mails go one per burst (mail-bursts.ts): the first at once, the requests of
 * the next 10 minutes in one summary with a fresh link, at most 20 a day. The route runs it
 * after the answer (app.background), so neither the answer nor its timing tells them apart.
 */
export async function requestReset(
  deps: Pick<Deps, 'db' | 'dialect' | 'clock' | 'config' | 'mail' | 'log'>,
  email: string,
  language: (saved: string) => Language,
) {
  try {
    const user = await findByEmail(deps.db, email);
    if (!user?.email) return;
    const event = { kind: 'password_reset', address: user.email, userId: user.id, now: deps.clock.now() } as const;
    if ((await noteMailEvent(deps.db, deps.dialect, event)) !== 'send') return;
    const link = await newResetLink(deps, user.id);
    await deps.mail.send(resetMail(language(user.language), user.email, user.username, link));
  } catch (error) {
    deps.log.error({ reason: (error as Error).message }, 'password reset e-mail could not be sent');
  }
}

/**
 * The summary of the reset requests a burst gathered, with a fresh link; nothing once the
 * password changed after the first of them (the owner got in).
 */
export async function resetSummary(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  user: User,
  count: number,
  since: number,
) {
  if (!user.email || user.password_changed_at > since) return null;
  const language = asLanguage(user.language);
  const link = await newResetLink(deps, user.id);
  return resetSummaryMail(language, user.email, user.username, link, count, mailTime(since, language, user.time_zone));
}

/**
 * Sets a new password from a reset link: the link works once, for an hour, and only
 * while the password has not changed since it was sent. Every session ends; the
 * address counts as verified, since the mail reached its owner.
 */
export async function confirmReset(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: z.output<typeof resetConfirmRequest>,
): Promise<void> {
  const { uid, token } = input;
  // Ids are UUIDs; anything else matches nobody (and a NUL would upset PostgreSQL).
  const user = /^[\w-]{1,64}$/.test(uid) ? await findById(deps.db, uid) : undefined;
  if (!user) throw detailError(400, RESET_TEXTS.invalidUser, 'invalid_user');
  const now = deps.clock.now();
  const row = await findOneTimeToken(deps.db, token, 'reset_password');
  const valid =
    row !== undefined &&
    row.user_id === user.id &&
    row.used_at === null &&
    row.expires_at > now &&
    row.created_at >= user.password_changed_at;
  if (!valid) throw detailError(400, RESET_TEXTS.invalidToken, 'invalid_token');

  newPassword ??= newPasswordCheck(commonPasswords());
  parseWith(newPassword, input);

  const passwordHash = await hashPassword(input.new_password1);
  const changed = await deps.db.transaction().execute(async (trx) => {
    // Claimed first, so two requests racing with one link change the password once.
    if (!(await consumeOneTimeToken(trx, row.id, now))) return false;
    await consumeAllOneTimeTokens(trx, user.id, 'reset_password', now);
    await updateUser(trx, user.id, { password_hash: passwordHash, password_changed_at: now, email_verified: 1 });
    await revokeAllSessions(trx, user.id, now);
    return true;
  });
  if (!changed) throw detailError(400, RESET_TEXTS.invalidToken, 'invalid_token');
}
