import type { z } from 'zod';
import { ACCOUNT_TEXTS, type registrationRequest } from '../../../common/api/accounts.js';
import { pathOf } from '../../../common/api/paths.js';
import { accountsRoutes } from '../../../common/api/routes.js';
import { asLanguage, DEFAULT_COUNTDOWN_SECONDS, type Language } from '../../../common/constants.js';
import { isCommonPassword, PASSWORD_ERROR_CODES, PASSWORD_ERRORS } from '../../../common/password-rules.js';
import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { fieldErrors } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { DAY } from '../../lib/time.js';
import { commonPasswords } from './common-passwords.js';
import { mailTime, registrationNoticeMail, registrationSummaryMail, verificationMail } from './mail.js';
import { noteMailEvent } from './mail-bursts.js';
import { hashPassword } from './passwords.js';
import {
  consumeOneTimeToken,
  createOneTimeToken,
  findByEmail,
  findOneTimeToken,
  insertUser,
  takenFields,
  updateUser,
} from './repository.js';

/** Verification links work for 3 days. */
export const VERIFY_TTL_MS = 3 * DAY;

type Registration = z.output<typeof registrationRequest>;

const USERNAME_TAKEN = { username: [ACCOUNT_TEXTS.usernameTaken] };
const usernameTaken = () => fieldErrors(USERNAME_TAKEN, 'username_exists');

/**
 * What the schema could not see: a username already taken, and a password among the 20,000
 * most common (the page checks the spec's short list only). Both in one 400.
 */
function refuseTakenOrCommon(usernameIsTaken: boolean, password: string): void {
  const common = isCommonPassword(password, commonPasswords());
  if (!usernameIsTaken && !common) return;
  throw fieldErrors(
    { ...(usernameIsTaken ? USERNAME_TAKEN : {}), ...(common ? { password1: [PASSWORD_ERRORS.tooCommon] } : {}) },
    {
      ...(usernameIsTaken ? { username: 'username_exists' as const } : {}),
      ...(common ? { password1: PASSWORD_ERROR_CODES.tooCommon } : {}),
    },
  );
}

/** The link the verification e-mail carries. */
export const verifyLink = (deps: Pick<Deps, 'config'>, key: string) =>
  `${deps.config.APP_URL}${pathOf(accountsRoutes.verifyEmail, { key })}`;

/** What registering and mailing its links need; a mail failure is logged, never said. */
type MailingDeps = Pick<Deps, 'db' | 'dialect' | 'clock' | 'config' | 'mail' | 'log'>;

const SENT = { detail: 'Verification e-mail sent.' } as const;

/**
 * Creates the user and their verification key in one transaction, then mails the key. The
 * request's schema checked every rule of SPEC §5; here only a taken username is said. For an
 * address that already has an account the answer is the same, and that address gets a
 * notice instead, so registration never tells who is registered.
 */
export async function register(
  deps: MailingDeps,
  input: Registration,
  language: Language,
): Promise<{ detail: string }> {
  // Usernames are public (every SMS carries one); e-mail addresses are not.
  const taken = await takenFields(deps.db, input.username, input.email);
  refuseTakenOrCommon(taken.username, input.password1);
  const passwordHash = await hashPassword(input.password1);
  if (taken.email) {
    // Awaited like the verification e-mail of a new account, so both answers take as long.
    await noticeTakenEmail(deps, input.email);
    return SENT;
  }
  const now = deps.clock.now();
  const userId = newId();
  let key: string;
  try {
    key = await deps.db.transaction().execute(async (trx) => {
      await insertUser(trx, {
        id: userId,
        username: input.username,
        email: input.email,
        password_hash: passwordHash,
        email_verified: 0,
        language,
        alert_countdown_seconds: DEFAULT_COUNTDOWN_SECONDS,
        token: null,
        trial_used_at: null,
        password_changed_at: now,
        created_at: now,
      });
      return createOneTimeToken(trx, { userId, purpose: 'verify_email', now, ttlMs: VERIFY_TTL_MS });
    });
  } catch (error) {
    // Two sign-ups racing for one name: the unique index decides, the loser gets the usual answers.
    const raced = await takenFields(deps.db, input.username, input.email);
    if (raced.username) throw usernameTaken();
    if (raced.email) return SENT;
    throw error;
  }
  await sendVerification(deps, { email: input.email, username: input.username }, key, language);
  return SENT;
}

/**
 * Tells the holder of an address that someone tried to register it again, in the holder's saved
 * language (not the language of whoever typed the address): the first attempt of a burst at once,
 * the others in one summary 10 minutes after, at most 20 a day (mail-bursts.ts). A failure is
 * logged, never said.
 */
async function noticeTakenEmail(deps: MailingDeps, email: string): Promise<void> {
  try {
    const user = await findByEmail(deps.db, email);
    if (!user?.email) return;
    const decision = await noteMailEvent(deps.db, deps.dialect, {
      kind: 'registration_notice',
      address: user.email,
      userId: user.id,
      now: deps.clock.now(),
    });
    if (decision !== 'send') return;
    await deps.mail.send(
      registrationNoticeMail(asLanguage(user.language), user.email, user.username, `${deps.config.APP_URL}/login`),
    );
  } catch (error) {
    deps.log.error({ reason: (error as Error).message }, 'registration notice could not be sent');
  }
}

/** The summary the sweep sends of the registration attempts gathered on an address, in its holder's language. */
export function registrationSummary(deps: Pick<Deps, 'config'>, user: User, count: number, since: number) {
  if (!user.email) return null;
  const language = asLanguage(user.language);
  return registrationSummaryMail(
    language,
    user.email,
    user.username,
    `${deps.config.APP_URL}/login`,
    count,
    mailTime(since, language, user.time_zone),
  );
}

/** Mails a verification link; a mail failure is logged (without the link) and the user can resend. */
export async function sendVerification(
  deps: Pick<Deps, 'config' | 'mail' | 'log'>,
  user: { email: string; username: string },
  key: string,
  language: Language,
): Promise<void> {
  try {
    await deps.mail.send(verificationMail(language, user.email, user.username, verifyLink(deps, key)));
  } catch (error) {
    deps.log.error({ reason: (error as Error).message }, 'verification e-mail could not be sent');
  }
}

/** A fresh verification link for an unverified address; silent otherwise (no enumeration). */
export async function resendVerification(
  deps: MailingDeps,
  email: string,
  language: (saved: string) => Language,
): Promise<void> {
  const user = await findByEmail(deps.db, email);
  if (!user || user.email_verified || !user.email) return;
  const key = await createOneTimeToken(deps.db, {
    userId: user.id,
    purpose: 'verify_email',
    now: deps.clock.now(),
    ttlMs: VERIFY_TTL_MS,
  });
  // Runs after the answer (app.background), so it may take its time.
  await sendVerification(deps, { email: user.email, username: user.username }, key, language(user.language));
}

/**
 * Verifies the address behind a key from the e-mail; false for an unknown or expired
 * key. Opening the same link twice within its 3 days just confirms again.
 */
export async function verifyEmail(deps: Pick<Deps, 'db' | 'clock'>, key: string): Promise<boolean> {
  if (key.length > 200) return false;
  const row = await findOneTimeToken(deps.db, key, 'verify_email');
  const now = deps.clock.now();
  if (!row || row.expires_at <= now) return false;
  await deps.db.transaction().execute(async (trx) => {
    await updateUser(trx, row.user_id, { email_verified: 1 });
    await consumeOneTimeToken(trx, row.id, now);
  });
  return true;
}
