import { z } from 'zod';
import { fieldErrors } from '../../lib/errors.js';

/** Field texts in the Django REST wording the web app's error catalogue matches on. */
export const TEXTS = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  notString: 'Not a valid string.',
  invalidEmail: 'Enter a valid email address.',
  tooLong: (max: number) => `Ensure this field has no more than ${max} characters.`,
  notObject: (got: string) => `Invalid data. Expected a dictionary, but got ${got}.`,
} as const;

const EMAIL_MAX = 254;
const emailSchema = z.email();

/**
 * Collects every problem of one request, keyed by field, so they all come back
 * together in one 400.
 */
export class Problems {
  readonly byField: Record<string, string[]> = {};

  add(field: string, message: string): void {
    this.byField[field] ??= [];
    if (!this.byField[field].includes(message)) this.byField[field].push(message);
  }

  has(field?: string): boolean {
    return field ? field in this.byField : Object.keys(this.byField).length > 0;
  }

  /** Throws the 400 when anything was found; `withDetail` also puts the first text in `detail`. */
  throwIfAny(options: { withDetail?: boolean } = {}): void {
    if (!this.has()) return;
    const errors: Record<string, string[] | string> = { ...this.byField };
    if (options.withDetail) errors.detail = Object.values(this.byField)[0]?.[0] ?? '';
    throw fieldErrors(errors as Record<string, string[]>);
  }
}

/** The JSON body as an object; anything else (an array, a string, nothing) is a 400. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  const got = Array.isArray(body) ? 'list' : typeof body === 'string' ? 'str' : typeof body;
  throw fieldErrors({ non_field_errors: [TEXTS.notObject(got)] });
}

interface StringOptions {
  /** Strip surrounding spaces (not for passwords). */
  trim?: boolean;
  max?: number;
}

/** A required, non-blank string field; null (with the problem noted) otherwise. */
export function requiredString(
  body: Record<string, unknown>,
  field: string,
  problems: Problems,
  options: StringOptions = {},
): string | null {
  const raw = body[field];
  if (raw === undefined || raw === null) {
    problems.add(field, raw === null ? 'This field may not be null.' : TEXTS.required);
    return null;
  }
  if (typeof raw !== 'string') {
    problems.add(field, TEXTS.notString);
    return null;
  }
  const value = options.trim ? raw.trim() : raw;
  if (value.trim() === '') {
    problems.add(field, TEXTS.blank);
    return null;
  }
  if (options.max !== undefined && [...value].length > options.max) {
    problems.add(field, TEXTS.tooLong(options.max));
    return null;
  }
  return value;
}

/** A valid e-mail address, trimmed and lowercased; null with the problem noted otherwise. */
export function emailValue(raw: unknown, field: string, problems: Problems): string | null {
  if (typeof raw !== 'string') {
    problems.add(field, TEXTS.invalidEmail);
    return null;
  }
  const email = raw.trim().toLowerCase();
  if (email === '') {
    problems.add(field, TEXTS.blank);
    return null;
  }
  if (email.length > EMAIL_MAX) {
    problems.add(field, TEXTS.tooLong(EMAIL_MAX));
    return null;
  }
  if (!emailSchema.safeParse(email).success) {
    problems.add(field, TEXTS.invalidEmail);
    return null;
  }
  return email;
}

/** The required `email` field of the reset and resend requests. */
export function requiredEmail(body: Record<string, unknown>, problems: Problems): string | null {
  const raw = body.email;
  if (raw === undefined || raw === null) {
    problems.add('email', TEXTS.required);
    return null;
  }
  return emailValue(raw, 'email', problems);
}
