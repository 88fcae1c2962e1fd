import type { FastifyInstance } from 'fastify';
import type { Language } from '../../../common/constants.js';
import { DEFAULT_COUNTDOWN_SECONDS } from '../../../common/constants.js';
import { PASSWORD_ERRORS } from '../../../common/password-rules.js';
import { fieldErrors } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { objectBody, Problems, requiredEmail, requiredString, TEXTS } from './fields.js';
import { registrationNoticeMail, verificationMail } from './mail.js';
import { checkPassword, hashPassword } from './passwords.js';
import {
  consumeOneTimeToken,
  createOneTimeToken,
  findByEmail,
  findOneTimeToken,
  insertUser,
  takenFields,
} from './repository.js';

export const REGISTRATION_TEXTS = {
  usernameTaken: 'A user with that username already exists.',
  emailTaken: 'A user is already registered with this e-mail address.',
  termsRequired: 'You must accept the terms and privacy policy.',
  invalidUsername: 'Enter a valid username. This value may contain only letters, numbers, and ./+/-/_ characters.',
} as const;

export const USERNAME_MAX = 30;
export const PASSWORD_MAX = 256;
/** Verification links work for 3 days. */
export const VERIFY_TTL_MS = 3 * 24 * 60 * 60 * 1000;
// Letters and digits of any script plus . + - _ ; never "@", so a login identifier with
// an "@" can only be an e-mail address.
const USERNAME = /^[\p{L}\p{N}._+-]+$/u;
const ACCEPTED = new Set<unknown>([true, 'true', 'on', 1, '1']);

export interface RegistrationInput {
  username: string;
  email: string;
  password: string;
  /** The e-mail address already belongs to an account: answered as a success, never said. */
  emailTaken: boolean;
}

/**
 * Every rule of SPEC §5 at once: throws one 400 with all problems keyed by field. Whether
 * the e-mail address is already registered is looked at only once everything else is
 * valid, and never said: the caller answers as for a new account.
 */
export async function validateRegistration(app: FastifyInstance, body: unknown): Promise<RegistrationInput> {
  const data = objectBody(body);
  const problems = new Problems();

  let username = requiredString(data, 'username', problems, { trim: true });
  if (username !== null) {
    // Compatibility forms folded first, so "ｊｏｅ" and "joe" cannot be two accounts.
    username = username.normalize('NFKC').toLowerCase();
    if ([...username].length > USERNAME_MAX) problems.add('username', TEXTS.tooLong(USERNAME_MAX));
    else if (!USERNAME.test(username)) problems.add('username', REGISTRATION_TEXTS.invalidUsername);
    if (problems.has('username')) username = null;
  }
  // Required: an account that can alert contacts must be reachable, and is verified first.
  const email = requiredEmail(data, problems);

  const password1 = requiredString(data, 'password1', problems, { max: PASSWORD_MAX });
  const password2 = requiredString(data, 'password2', problems, { max: PASSWORD_MAX });
  if (password1 !== null) for (const message of checkPassword(password1)) problems.add('password1', message);
  if (password1 !== null && password2 !== null && password1 !== password2) {
    problems.add('password2', PASSWORD_ERRORS.mismatch);
  }
  if (!ACCEPTED.has(data.accept_terms)) problems.add('accept_terms', REGISTRATION_TEXTS.termsRequired);

  // Usernames are public (every SMS carries one); e-mail addresses are not.
  const taken = await takenFields(app.db, username, problems.has() ? null : email);
  if (taken.username) problems.add('username', REGISTRATION_TEXTS.usernameTaken);
  problems.throwIfAny();
  return { username: username!, email: email!, password: password1!, emailTaken: taken.email };
}

/** The link the verification e-mail carries. */
export const verifyLink = (app: FastifyInstance, key: string) => `${app.config.APP_URL}/api/users/verify-email/${key}/`;

const SENT = { detail: 'Verification e-mail sent.' } as const;

/**
 * Creates the user and their verification key in one transaction, then mails the key.
 * For an address that already has an account the answer is the same, and that address
 * gets a notice instead, so registration never tells who is registered.
 */
export async function register(app: FastifyInstance, body: unknown, language: Language): Promise<{ detail: string }> {
  const input = await validateRegistration(app, body);
  const passwordHash = await hashPassword(input.password);
  if (input.emailTaken) {
    // Awaited like the verification e-mail of a new account, so both answers take as long.
    await noticeTakenEmail(app, input.email, language);
    return SENT;
  }
  const now = app.clock.now();
  const userId = newId();
  let key: string;
  try {
    key = await app.db.transaction().execute(async (trx) => {
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
    const taken = await takenFields(app.db, input.username, input.email);
    if (taken.username) throw fieldErrors({ username: [REGISTRATION_TEXTS.usernameTaken] });
    if (taken.email) return SENT;
    throw error;
  }
  await sendVerification(app, { email: input.email, username: input.username }, key, language);
  return SENT;
}

/** Tells the holder of an address that someone tried to register it again; a failure is logged, never said. */
async function noticeTakenEmail(app: FastifyInstance, email: string, language: Language): Promise<void> {
  try {
    const user = await findByEmail(app.db, email);
    if (!user?.email) return;
    await app.mail.send(registrationNoticeMail(language, user.email, user.username, `${app.config.APP_URL}/login`));
  } catch (error) {
    app.log.error({ reason: (error as Error).message }, 'registration notice could not be sent');
  }
}

/** Mails a verification link; a mail failure is logged (without the link) and the user can resend. */
export async function sendVerification(
  app: FastifyInstance,
  user: { email: string; username: string },
  key: string,
  language: Language,
): Promise<void> {
  try {
    await app.mail.send(verificationMail(language, user.email, user.username, verifyLink(app, key)));
  } catch (error) {
    app.log.error({ reason: (error as Error).message }, 'verification e-mail could not be sent');
  }
}

/** A fresh verification link for an unverified address; silent otherwise (no enumeration). */
export async function resendVerification(
  app: FastifyInstance,
  email: string,
  language: (saved: string) => Language,
): Promise<void> {
  const user = await findByEmail(app.db, email);
  if (!user || user.email_verified || !user.email) return;
  const key = await createOneTimeToken(app.db, {
    userId: user.id,
    purpose: 'verify_email',
    now: app.clock.now(),
    ttlMs: VERIFY_TTL_MS,
  });
  // Runs after the answer (app.background), so it may take its time.
  await sendVerification(app, { email: user.email, username: user.username }, key, language(user.language));
}

/**
 * Verifies the address behind a key from the e-mail; false for an unknown or expired
 * key. Opening the same link twice within its 3 days just confirms again.
 */
export async function verifyEmail(app: FastifyInstance, key: string): Promise<boolean> {
  if (key.length > 200) return false;
  const row = await findOneTimeToken(app.db, key, 'verify_email');
  const now = app.clock.now();
  if (!row || row.expires_at <= now) return false;
  await app.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ email_verified: 1 }).where('id', '=', row.user_id).execute();
    await consumeOneTimeToken(trx, row.id, now);
  });
  return true;
}
