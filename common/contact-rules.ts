/**
 * The emergency-contact rules (SPEC §5), shared by the server and the web app's form.
 * Pure and browser-safe: phone numbers are parsed with libphonenumber-js (its default,
 * smallest metadata), never by hand.
 */
import { type ParseError, parsePhoneNumberWithError, validatePhoneNumberLength } from 'libphonenumber-js';
import type { ErrorBody, ErrorCode } from './api/errors.js';
import { CONTACT_NAME_MAX, CONTACT_NAME_MIN, PHONE_MAX_DIGITS, PHONE_MIN_DIGITS } from './constants.js';

/** Longest number accepted when long numbers are enabled: a 3-digit country code and the 17 national digits libphonenumber allows. */
export const PHONE_MAX_DIGITS_LONG = 20;
/** Longest relationship label (characters). */
export const RELATIONSHIP_MAX = 50;

/** The English texts the API answers with; the web app's error catalogue matches on some of them (SPEC §8). */
export const CONTACT_MESSAGES = {
  requiredName: 'Name is required.',
  invalidName: `Name must have ${CONTACT_NAME_MIN} to ${CONTACT_NAME_MAX} characters: letters, spaces, apostrophes and hyphens.`,
  requiredPhone: 'Phone number is required.',
  phoneFormat: 'Phone number must be in international format, e.g. +351912345678.',
  phoneTooShort: `Phone number must have at least ${PHONE_MIN_DIGITS} digits.`,
  phoneTooLong: (max: number) => `Phone number must have at most ${max} digits.`,
  duplicate: 'This number is already in your contacts.',
  relationshipTooLong: `Relationship must have at most ${RELATIONSHIP_MAX} characters.`,
  invalidRelationship: 'Relationship may only contain printable characters.',
} as const;

export type NameErrorKey = 'setup.required_name' | 'setup.invalid_name';
export type PhoneError = 'required' | 'format' | 'too_short' | 'too_long';
export type PhoneResult = { ok: true; e164: string } | { ok: false; error: PhoneError; message: string };

export interface PhoneOptions {
  /** Lifts the 15-digit maximum (config LONG_PHONE_NUMBERS). */
  longNumbers?: boolean;
}

// Direction marks and zero-width characters that copy-paste from contact apps and chat
// adds around numbers and names; they are invisible, so we drop them rather than refuse.
const BIDI_AND_ZERO_WIDTH = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu;
// Letters in any script with their combining marks; spaces, apostrophes (straight or
// typographic, as phone keyboards type them) and hyphens between them.
// Zero-width (non-)joiners are part of how some scripts (e.g. Persian) spell names.
const NAME_PATTERN = /^(?:[\p{L}\p{M} '’-]|\u200C|\u200D)+$/u;
const HAS_LETTER = /\p{L}/u;
// What a typed or pasted number may contain besides digits: spacing and the usual punctuation.
const PHONE_CHARACTERS = /^\+[\p{Nd}\s().\-/]+$/u;
const DIGIT = /\p{Nd}/gu;

const characters = (text: string) => [...text].length;

/** The name as stored: invisible marks removed, NFC, trimmed, inner spacing collapsed. */
export function normaliseContactName(name: string | null | undefined): string {
  return (name ?? '').replace(BIDI_AND_ZERO_WIDTH, '').normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** The i18n key of what is wrong with a contact name, or null when it is acceptable. */
export function validateContactName(name: string | null | undefined): NameErrorKey | null {
  const clean = normaliseContactName(name);
  if (clean === '') return 'setup.required_name';
  const length = characters(clean);
  if (length < CONTACT_NAME_MIN || length > CONTACT_NAME_MAX) return 'setup.invalid_name';
  if (!NAME_PATTERN.test(clean) || !HAS_LETTER.test(clean)) return 'setup.invalid_name';
  return null;
}

const phoneFailure = (error: PhoneError, max: number): PhoneResult => {
  const messages = {
    required: CONTACT_MESSAGES.requiredPhone,
    format: CONTACT_MESSAGES.phoneFormat,
    too_short: CONTACT_MESSAGES.phoneTooShort,
    too_long: CONTACT_MESSAGES.phoneTooLong(max),
  };
  return { ok: false, error, message: messages[error] };
};

/**
 * Checks a typed phone number and returns it in E.164 (`+351912345678`): a missing `+`
 * is added (a leading international `00` becomes `+`), it must be a valid international
 * number of 9 to 15 digits (up to PHONE_MAX_DIGITS_LONG with `longNumbers`).
 */
export function normalisePhone(input: string | null | undefined, options: PhoneOptions = {}): PhoneResult {
  const max = options.longNumbers ? PHONE_MAX_DIGITS_LONG : PHONE_MAX_DIGITS;
  // Invisible format characters go; any kind of space or line break becomes a plain space for the parser.
  let text = (input ?? '')
    .replace(/\p{Cf}/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
  if (text === '') return phoneFailure('required', max);
  const withCountry = text.startsWith('+') || text.startsWith('00');
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  else if (!text.startsWith('+')) text = `+${text}`;
  if (!PHONE_CHARACTERS.test(text)) return phoneFailure('format', max);
  const typedDigits = text.match(DIGIT)?.length ?? 0;
  if (typedDigits < PHONE_MIN_DIGITS) return phoneFailure('too_short', max);
  // Generous slack for a written trunk prefix such as "+44 (0)…"; the exact count is checked below.
  if (typedDigits > max + 2) return phoneFailure('too_long', max);
  let parsed: ReturnType<typeof parsePhoneNumberWithError>;
  try {
    parsed = parsePhoneNumberWithError(text, { extract: false });
  } catch (error) {
    const reason = (error as ParseError).message;
    if (reason === 'TOO_SHORT') return phoneFailure('too_short', max);
    if (reason === 'TOO_LONG') return phoneFailure('too_long', max);
    return phoneFailure('format', max);
  }
  const e164 = parsed.number;
  const digits = e164.length - 1;
  if (digits < PHONE_MIN_DIGITS) return phoneFailure('too_short', max);
  if (digits > max) return phoneFailure('too_long', max);
  // Fewer digits than the country's numbers have (+351 and 7 digits): short, not malformed. Typed
  // without a country code, the likelier mistake is the missing code, which the format message names.
  if (withCountry && !parsed.isValid() && validatePhoneNumberLength(text) === 'TOO_SHORT') {
    return phoneFailure('too_short', max);
  }
  if (parsed.ext || !parsed.isValid() || !/^\+[1-9]\d+$/.test(e164)) return phoneFailure('format', max);
  return { ok: true, e164 };
}

export type ContactField = 'name' | 'phone_number' | 'relationship';
/** One field's problem: the API's stable code (the web app translates it) and its English text. */
export interface ContactFieldError {
  code: ErrorCode;
  message: string;
}
export type ContactErrors = Partial<Record<ContactField, ContactFieldError>>;

/** The 400 body of a contact's problems, as the API answers it and the form shows it. */
export function contactErrorBody(errors: ContactErrors): ErrorBody {
  const entries = Object.entries(errors) as [ContactField, ContactFieldError][];
  return {
    ...Object.fromEntries(entries.map(([field, error]) => [field, [error.message]])),
    code: entries[0]?.[1].code ?? 'invalid',
    codes: Object.fromEntries(entries.map(([field, error]) => [field, error.code])),
  };
}

export interface ContactInput {
  name?: string | null;
  phone_number?: string | null;
  relationship?: string | null;
}

export interface CleanContact {
  name: string;
  phone_number: string;
  relationship: string;
}

const PHONE_CODES: Record<PhoneError, ErrorCode> = {
  required: 'phone_required',
  format: 'phone_format',
  too_short: 'phone_too_short',
  too_long: 'phone_too_long',
};

/** The relationship label as stored: invisible marks removed, NFC, trimmed, spacing collapsed. */
export function normaliseRelationship(relationship: string | null | undefined): string {
  return normaliseContactName(relationship);
}

/** Checks a whole contact against the rules and the user's existing numbers; returns the clean contact or the errors by field. */
export function parseContact(
  input: ContactInput,
  existingE164s: Iterable<string>,
  options: PhoneOptions = {},
): { ok: true; contact: CleanContact } | { ok: false; errors: ContactErrors } {
  const errors: ContactErrors = {};
  const nameError = validateContactName(input.name);
  if (nameError) {
    errors.name =
      nameError === 'setup.required_name'
        ? { code: 'name_required', message: CONTACT_MESSAGES.requiredName }
        : { code: 'invalid_name', message: CONTACT_MESSAGES.invalidName };
  }
  const phone = normalisePhone(input.phone_number, options);
  if (!phone.ok) {
    errors.phone_number = { code: PHONE_CODES[phone.error], message: phone.message };
  } else if (new Set(existingE164s).has(phone.e164)) {
    errors.phone_number = {
      code: 'duplicate_phone',
      message: CONTACT_MESSAGES.duplicate,
    };
  }
  const relationship = normaliseRelationship(input.relationship);
  if (characters(relationship) > RELATIONSHIP_MAX) {
    errors.relationship = {
      code: 'invalid_relationship',
      message: CONTACT_MESSAGES.relationshipTooLong,
    };
  } else if (/[\p{Cc}\p{Co}\p{Cn}]/u.test(relationship)) {
    errors.relationship = {
      code: 'invalid_relationship',
      message: CONTACT_MESSAGES.invalidRelationship,
    };
  }
  if (Object.keys(errors).length > 0 || !phone.ok) return { ok: false, errors };
  return {
    ok: true,
    contact: { name: normaliseContactName(input.name), phone_number: phone.e164, relationship },
  };
}

/**
 * The field-keyed errors of a contact (empty when it is acceptable). `existingE164s` are
 * the user's stored numbers; a duplicate is found after normalising to E.164.
 */
export function validateContact(
  input: ContactInput,
  existingE164s: Iterable<string>,
  options: PhoneOptions = {},
): ContactErrors {
  const result = parseContact(input, existingE164s, options);
  return result.ok ? {} : result.errors;
}
