/**
 * The error half of the API contract: every error body the server answers, in the Django
 * REST shape of DESIGN.md §3 (`detail`, `non_field_errors` or field-keyed arrays of English
 * texts), always with a stable `code` the web app translates. Field errors also carry
 * `codes`, the code of each field's first text, so every field is translated on its own.
 */
import { z } from 'zod';

/** What the app may show for a failure: one stable code per kind of problem. */
export const ERROR_CODES = [
  // Request shape (any route).
  'invalid',
  'required',
  'null',
  'blank',
  'not_a_string',
  'not_an_object',
  'max_length',
  'min_value',
  'max_value',
  'not_a_number',
  'invalid_choice',
  'invalid_email',
  'parse_error',
  'bad_request',
  'bad_url',
  'payload_too_large',
  'unsupported_media_type',
  'uri_too_long',
  'headers_too_large',
  'request_timeout',
  'invalid_characters',
  // Authentication and accounts.
  'not_authenticated',
  'token_not_valid',
  'forbidden',
  'no_active_account',
  'email_not_verified',
  'username_exists',
  'invalid_username',
  'password_too_short',
  'password_too_common',
  'password_entirely_numeric',
  'password_no_digit',
  'password_mismatch',
  'wrong_password',
  'terms_required',
  'invalid_token',
  'invalid_user',
  'invalid_display_name',
  'display_name_link',
  'invalid_time_zone',
  'invalid_escalation_delay',
  // Contacts.
  'name_required',
  'invalid_name',
  'phone_required',
  'phone_format',
  'phone_too_short',
  'phone_too_long',
  'duplicate_phone',
  'invalid_relationship',
  'contact_limit_reached',
  'subscription_required',
  'invitation_too_soon',
  'invitation_limit',
  'contact_opted_out',
  // Billing.
  'invalid_plan',
  'already_subscribed',
  'same_plan',
  'no_subscription',
  'payment_provider_error',
  'checkout_canceled',
  'invalid_signature',
  'invalid_payload',
  // Alerts and live pages.
  'idempotency_key_required',
  'idempotency_key_invalid',
  'idempotency_key_reused',
  'gps_not_in_plan',
  'no_contacts',
  'no_test_contacts',
  'unknown_test_contact',
  'not_real',
  'alert_ended',
  'alert_resolved',
  'tracking_over',
  'too_many_responders',
  'too_many_streams',
  // Lowering an alarm (ending, postponing, moving, quieting) without the owner's proof.
  'owner_proof_required',
  // Check-ins.
  'checkin_running',
  'checkin_ended',
  'checkin_fired',
  'checkin_too_long',
  'wrong_pin',
  'pin_locked',
  'device_key_required',
  'push_subscriptions_full',
  // Escalation calls (the dev outbox's keys).
  'invalid_digits',
  'invalid_pin',
  'same_pin',
  // Any route.
  'not_found',
  'throttled',
  'unavailable',
  'overloaded',
  'server_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Field texts in the Django REST wording. */
export const FIELD_TEXTS = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  notString: 'Not a valid string.',
  invalidEmail: 'Enter a valid email address.',
  tooLong: (max: number) => `Ensure this field has no more than ${max} characters.`,
  notNumber: 'A valid number is required.',
  minValue: (min: number) => `Ensure this value is greater than or equal to ${min}.`,
  maxValue: (max: number) => `Ensure this value is less than or equal to ${max}.`,
  notObject: (got: string) => `Invalid data. Expected a dictionary, but got ${got}.`,
  invalidChoice: (value: string) => `"${value.slice(0, 50)}" is not a valid choice.`,
} as const;

const code = z.enum(ERROR_CODES);

/**
 * Any error answer: `detail` or field arrays of texts, the stable `code`, `codes` per field,
 * and for some codes their parameters (`max` and `plan` of contact_limit_reached,
 * `retry_after` of throttled).
 */
export const errorBody = z
  .object({
    code,
    detail: z.string().optional(),
    non_field_errors: z.array(z.string()).optional(),
    codes: z.record(z.string(), code).optional(),
  })
  .catchall(z.union([z.array(z.string()), z.string(), z.number(), z.null(), z.record(z.string(), code)]))
  .meta({ id: 'Error', description: 'An error answer: detail or field-keyed texts, with a stable code.' });

export type ErrorBody = z.infer<typeof errorBody>;

/** The parts of a zod issue the error body is made from (zod's own issue type, loosely). */
export interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  format?: string;
  params?: Record<string, unknown>;
}

const kindOf = (value: unknown) =>
  Array.isArray(value) ? 'list' : value === null ? 'null' : typeof value === 'string' ? 'str' : typeof value;

/** A sent value as a text names it; never throws (`{"toString": 0}` cannot be made a string). */
function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value) ?? kindOf(value);
  } catch {
    return kindOf(value);
  }
}

/**
 * The stable code and the English text of one schema problem. A refinement names its own
 * code in `params.code` and keeps its message; zod's built-in checks get the Django REST texts.
 */
export function describeIssue(issue: IssueLike): { code: ErrorCode; text: string } {
  const own = issue.params?.code;
  if (typeof own === 'string' && (ERROR_CODES as readonly string[]).includes(own)) {
    return { code: own as ErrorCode, text: issue.message };
  }
  // A field left out or sent as null is that, whatever it should have held (a choice, a number).
  if (issue.input === undefined && issue.code !== 'custom') return { code: 'required', text: FIELD_TEXTS.required };
  if (issue.input === null && issue.code !== 'custom') return { code: 'null', text: FIELD_TEXTS.null };
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'object')
        return { code: 'not_an_object', text: FIELD_TEXTS.notObject(kindOf(issue.input)) };
      if (issue.expected === 'string') return { code: 'not_a_string', text: FIELD_TEXTS.notString };
      if (issue.expected === 'number') return { code: 'not_a_number', text: FIELD_TEXTS.notNumber };
      return { code: 'invalid', text: issue.message };
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return { code: 'blank', text: FIELD_TEXTS.blank };
      if (issue.origin === 'number') return { code: 'min_value', text: FIELD_TEXTS.minValue(Number(issue.minimum)) };
      return { code: 'invalid', text: issue.message };
    case 'too_big':
      if (issue.origin === 'string') return { code: 'max_length', text: FIELD_TEXTS.tooLong(Number(issue.maximum)) };
      if (issue.origin === 'number') return { code: 'max_value', text: FIELD_TEXTS.maxValue(Number(issue.maximum)) };
      return { code: 'invalid', text: issue.message };
    case 'invalid_format':
      if (issue.format === 'email') return { code: 'invalid_email', text: FIELD_TEXTS.invalidEmail };
      return { code: 'invalid', text: issue.message };
    case 'invalid_value':
      return { code: 'invalid_choice', text: FIELD_TEXTS.invalidChoice(shown(issue.input)) };
    default:
      return { code: 'invalid', text: issue.message };
  }
}

const DETAILED = new WeakSet<object>();

/** Marks a request schema whose 400 also carries its first problem's text as `detail` (SPEC §7: reset and resend). */
export function withDetail<T extends object>(schema: T): T {
  DETAILED.add(schema);
  return schema;
}

const REFUSALS = new WeakMap<object, ErrorBody>();

/** Marks a request schema whose every problem is answered with one fixed 400 body (billing's `{error, code}`). */
export function refusedAs<T extends object>(schema: T, body: ErrorBody): T {
  REFUSALS.set(schema, body);
  return schema;
}

/** The fixed 400 body of a schema marked by `refusedAs`. */
export const refusalOf = (schema: unknown): ErrorBody | undefined =>
  typeof schema === 'object' && schema !== null ? REFUSALS.get(schema) : undefined;

/** Whether a schema's 400 carries `detail` too. */
export const answersWithDetail = (schema: unknown): boolean =>
  typeof schema === 'object' && schema !== null && DETAILED.has(schema);

/**
 * The 400 body for a failed parse: every problem under its field's path, dotted for a field
 * inside another (`location.captured_at`, so a client knows which one), `non_field_errors` for
 * the body as a whole; each field's first code in `codes`, and the first field's code as the
 * body's `code`; with `detail`, the first text as well.
 */
export function validationBody(issues: readonly IssueLike[], options: { detail?: boolean } = {}): ErrorBody {
  const fields: Record<string, string[]> = {};
  const codes: Record<string, ErrorCode> = {};
  for (const issue of issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'non_field_errors';
    const { code: issueCode, text } = describeIssue(issue);
    fields[field] ??= [];
    codes[field] ??= issueCode;
    if (!fields[field].includes(text)) fields[field].push(text);
  }
  const body: ErrorBody = { ...fields, code: Object.values(codes)[0] ?? 'invalid', codes };
  if (options.detail) body.detail = Object.values(fields)[0]?.[0] ?? '';
  return body;
}
