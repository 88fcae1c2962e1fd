import { PASSWORD_MIN_LENGTH } from './constants.js';

/**
 * Password rules of SPEC §5, shared by the register page's live checklist and the
 * server. Pure and browser-safe: the big list of common passwords is loaded by server
 * code only and passed in, so it never enters the browser bundle.
 */

/** The spec's own common passwords; the server adds a list of the 20,000 most common. */
export const SPEC_COMMON_PASSWORDS: readonly string[] = [
  'password',
  '12345678',
  'qwerty',
  '11111111',
  '00000000',
  'abcdef',
  'admin',
];

/** Six or more repeats of one digit anywhere ("111111", "ab000000"). */
const REPEATED_DIGITS = /(\p{Nd})\1{5,}/u;
const DIGIT = /\p{Nd}/u;
const ONLY_DIGITS = /^\p{Nd}+$/u;

/** The exact server texts (DESIGN §3); the web app's error catalogue matches on them. */
export const PASSWORD_ERRORS = {
  tooShort: `This password is too short. It must contain at least ${PASSWORD_MIN_LENGTH} characters.`,
  noDigit: 'This password must contain at least one digit.',
  tooCommon: 'This password is too common.',
  entirelyNumeric: 'This password is entirely numeric.',
  mismatch: "The two password fields didn't match.",
} as const;

/** One flag per checklist line; every flag true means the password is acceptable. */
export interface PasswordChecks {
  minLength: boolean;
  hasDigit: boolean;
  notCommon: boolean;
  notAllDigits: boolean;
}

/** Length in characters (code points), so an emoji counts once. */
const length = (password: string): number => [...password].length;

/** True when the password is on the spec's list, the given list, or repeats one digit 6+ times. */
export function isCommonPassword(password: string, commonList?: ReadonlySet<string>): boolean {
  const normalized = password.trim().toLowerCase();
  return (
    SPEC_COMMON_PASSWORDS.includes(normalized) ||
    (commonList?.has(normalized) ?? false) ||
    REPEATED_DIGITS.test(password)
  );
}

/** The live checklist of the register page (SPEC §5). */
export function passwordChecks(password: string, commonList?: ReadonlySet<string>): PasswordChecks {
  return {
    minLength: length(password) >= PASSWORD_MIN_LENGTH,
    hasDigit: DIGIT.test(password),
    notCommon: !isCommonPassword(password, commonList),
    notAllDigits: !ONLY_DIGITS.test(password),
  };
}

/** True when every checklist line passes. */
export const passwordAcceptable = (checks: PasswordChecks): boolean => Object.values(checks).every(Boolean);

/** The stable code the API answers with each text of PASSWORD_ERRORS. */
export const PASSWORD_ERROR_CODES = {
  tooShort: 'password_too_short',
  noDigit: 'password_no_digit',
  tooCommon: 'password_too_common',
  entirelyNumeric: 'password_entirely_numeric',
  mismatch: 'password_mismatch',
} as const;

export type PasswordProblem = keyof typeof PASSWORD_ERRORS;

/** What is wrong with a password, in a stable order; empty when it is acceptable. */
export function passwordProblems(
  password: string,
  options: { commonList?: ReadonlySet<string> } = {},
): Exclude<PasswordProblem, 'mismatch'>[] {
  const checks = passwordChecks(password, options.commonList);
  const problems: Exclude<PasswordProblem, 'mismatch'>[] = [];
  if (!checks.minLength) problems.push('tooShort');
  if (!checks.notCommon) problems.push('tooCommon');
  if (!checks.notAllDigits) problems.push('entirelyNumeric');
  else if (!checks.hasDigit) problems.push('noDigit');
  return problems;
}
