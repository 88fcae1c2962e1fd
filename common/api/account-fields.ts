/**
 * The fields of the account requests (common/api/accounts.ts): usernames, e-mail addresses,
 * passwords and the terms, each problem with its code in the Django REST wording.
 */
import { z } from 'zod';
import { PASSWORD_ERROR_CODES, PASSWORD_ERRORS, passwordProblems } from '../password-rules.js';
import { FIELD_TEXTS } from './errors.js';

export const USERNAME_MAX = 30;
export const PASSWORD_MAX = 256;
/** The longest address SMTP carries. */
const EMAIL_MAX = 254;

export const ACCOUNT_TEXTS = {
  usernameTaken: 'A user with that username already exists.',
  termsRequired: 'You must accept the terms and privacy policy.',
  invalidUsername: 'Enter a valid username. This value may contain only letters, numbers, and ./+/-/_ characters.',
} as const;

// Letters and digits of any script plus . + - _ ; never "@", so a login identifier with
// an "@" can only be an e-mail address.
const USERNAME = /^[\p{L}\p{N}._+-]+$/u;
const ACCEPTED = new Set<unknown>([true, 'true', 'on', 1, '1']);

/** A required text that may not be blank (whitespace alone is blank too). */
export function text(options: { trim?: boolean; max?: number } = {}) {
  const base = options.trim ? z.string().trim() : z.string();
  const sized = base.min(1).max(options.max ?? 4096);
  return sized.refine((value) => value.trim() !== '', { message: FIELD_TEXTS.blank, params: { code: 'blank' } });
}

/** An e-mail address, trimmed and lowercased. */
export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(EMAIL_MAX)
  .refine((value) => value === '' || value.length > EMAIL_MAX || z.email().safeParse(value).success, {
    message: FIELD_TEXTS.invalidEmail,
    params: { code: 'invalid_email' },
  })
  .meta({ format: 'email' });

/** Compatibility forms folded and lowercased, so "ｊｏｅ" and "Joe" are "joe". */
export const foldIdentifier = (value: string) => value.normalize('NFKC').toLowerCase();

/** A username, folded. */
export const usernameField = z
  .string()
  .trim()
  .min(1)
  .overwrite(foldIdentifier)
  .max(USERNAME_MAX)
  .refine((value) => value === '' || value.length > USERNAME_MAX || USERNAME.test(value), {
    message: ACCOUNT_TEXTS.invalidUsername,
    params: { code: 'invalid_username' },
  });

export const passwordField = text({ max: PASSWORD_MAX });

/** Acceptance of the terms and privacy policy: true (or a form's "on"). */
export const termsField = z
  .unknown()
  .refine((value) => ACCEPTED.has(value), {
    message: ACCOUNT_TEXTS.termsRequired,
    params: { code: 'terms_required' },
  })
  .meta({ type: 'boolean', description: 'Must be true.' });

const usable = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= PASSWORD_MAX;

/**
 * A new password under the rules of SPEC §5, each problem with its code; `commonList` is the
 * server's list of common passwords. Checked on the field alone, so it answers together with
 * any other field's problem.
 */
export const newPasswordField = (commonList?: ReadonlySet<string>) =>
  passwordField.superRefine((password, ctx) => {
    if (!usable(password)) return;
    for (const problem of passwordProblems(password, { commonList })) {
      ctx.addIssue({
        code: 'custom',
        message: PASSWORD_ERRORS[problem],
        params: { code: PASSWORD_ERROR_CODES[problem] },
      });
    }
  });

/** The repetition of a new password must match it (said once both are there). */
export function repeated<T extends Record<string, unknown>>(first: keyof T & string, second: keyof T & string) {
  return (body: T, ctx: z.core.$RefinementCtx<T>) => {
    if (usable(body[first]) && usable(body[second]) && body[first] !== body[second]) {
      ctx.addIssue({
        code: 'custom',
        path: [second],
        message: PASSWORD_ERRORS.mismatch,
        params: { code: PASSWORD_ERROR_CODES.mismatch },
      });
    }
  };
}
