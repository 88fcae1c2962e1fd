/**
 * The error catalogue of SPEC §8: every error answer carries a stable `code` (and field errors
 * a `codes` entry per field, `common/api/errors.ts`), which becomes a message key here. The
 * English texts are only shown for a code the app has no words for.
 */
import type { ErrorCode } from '../../common/api/errors';

/** Something to show: a translation key with parameters, or the server's raw text. */
export type Message = { key: string; params?: Record<string, string | number> } | { text: string };

export interface MappedError {
  /** The main message (detail, error or non_field_errors); null when only fields failed. */
  message: Message | null;
  /** One message per failing field. */
  fields: Record<string, Message>;
}

type Body = Record<string, unknown>;

const key = (name: string, params?: Record<string, string | number>): Message =>
  params ? { key: name, params } : { key: name };

/**
 * How the app says a code: a message key, or a function building the message from the answer
 * and the field it came under (null when the answer lacks what it needs). A null rule shows the
 * server's text: the emergency and live pages have their own strings for their codes, and the
 * rest only a broken request or a proxy meets.
 */
type Rule = string | ((body: Body, field: string | undefined) => Message | null) | null;

const CODE_MESSAGES: Record<ErrorCode, Rule> = {
  // Request shape.
  invalid: null,
  required: 'errors.fieldRequired',
  null: 'errors.fieldRequired',
  blank: (_body, field) => (field ? key('errors.fieldBlank', { field }) : key('errors.fieldBlankGeneric')),
  not_a_string: null,
  not_an_object: null,
  max_length: 'errors.tooLong',
  // Numbers only the emergency and live pages send, which say their own words.
  min_value: null,
  max_value: null,
  not_a_number: null,
  invalid_choice: 'errors.invalidChoice',
  invalid_email: 'errors.invalidEmail',
  parse_error: null,
  bad_request: null,
  bad_url: null,
  payload_too_large: null,
  unsupported_media_type: null,
  uri_too_long: null,
  headers_too_large: null,
  request_timeout: null,
  invalid_characters: 'errors.invalidCharacters',
  // Authentication and accounts.
  not_authenticated: 'errors.sessionExpired',
  token_not_valid: 'errors.sessionExpired',
  forbidden: 'errors.forbidden',
  no_active_account: 'errors.invalidCredentials',
  email_not_verified: 'errors.emailNotVerified',
  username_exists: 'errors.usernameExists',
  invalid_username: 'errors.invalidUsername',
  password_too_short: 'errors.passwordTooShort',
  password_too_common: 'errors.passwordTooCommon',
  password_entirely_numeric: 'errors.passwordAllDigits',
  password_no_digit: 'errors.passwordNoDigit',
  password_mismatch: 'errors.passwordsDontMatch',
  wrong_password: 'errors.wrongPassword',
  terms_required: 'errors.termsRequired',
  invalid_token: 'reset.invalid_link',
  invalid_user: 'reset.invalid_user',
  invalid_display_name: 'setup.invalid_display_name',
  display_name_link: 'setup.display_name_link',
  invalid_time_zone: 'setup.invalid_time_zone',
  invalid_escalation_delay: 'setup.invalid_escalation_delay',
  // Contacts.
  name_required: 'setup.required_name',
  invalid_name: 'setup.invalid_name',
  phone_required: 'setup.required_phone',
  phone_format: 'setup.invalid_phone_format',
  phone_too_short: 'setup.phone_too_short',
  phone_too_long: 'setup.phone_too_long',
  duplicate_phone: 'setup.phone_already_exists',
  invalid_relationship: 'setup.invalid_relationship',
  contact_limit_reached: ({ max, plan }) =>
    typeof max === 'number' && typeof plan === 'string' ? key('setup.contact_limit', { max, plan }) : null,
  subscription_required: 'setup.premium_required_to_add',
  invitation_too_soon: 'setup.invitation_too_soon',
  invitation_limit: 'setup.invitation_limit',
  contact_opted_out: 'setup.contact_opted_out',
  // Billing.
  invalid_plan: 'billing.invalid_plan',
  already_subscribed: 'billing.already_subscribed',
  same_plan: 'billing.same_plan',
  no_subscription: 'billing.no_subscription',
  payment_provider_error: 'billing.provider_error',
  checkout_canceled: 'billing.checkout_canceled',
  invalid_signature: null,
  invalid_payload: null,
  // Alerts and live pages.
  idempotency_key_required: null,
  idempotency_key_invalid: null,
  idempotency_key_reused: null,
  gps_not_in_plan: null,
  no_contacts: null,
  no_test_contacts: null,
  unknown_test_contact: null,
  not_real: null,
  alert_ended: null,
  alert_resolved: null,
  tracking_over: null,
  too_many_responders: null,
  // The live page falls back to polling; it never shows this.
  too_many_streams: null,
  owner_proof_required: null,
  // Check-ins: the emergency page says these in its own words; the PINs are set in the app.
  checkin_running: null,
  checkin_ended: null,
  checkin_fired: null,
  checkin_too_long: null,
  wrong_pin: null,
  pin_locked: null,
  device_key_required: null,
  push_subscriptions_full: null,
  invalid_pin: 'checkins.invalid_pin',
  same_pin: 'checkins.same_pin',
  invalid_digits: null,
  // Any route.
  not_found: 'errors.notFound',
  throttled: 'errors.rateLimited',
  unavailable: 'errors.server',
  overloaded: 'errors.server',
  server_error: 'errors.server',
};

const isBody = (data: unknown): data is Body => typeof data === 'object' && data !== null && !Array.isArray(data);

/** The app's words for `code` under `field` (none for the main message), or null when it has none. */
function saidByApp(code: unknown, body: Body, field?: string): Message | null {
  if (typeof code !== 'string' || !Object.hasOwn(CODE_MESSAGES, code)) return null;
  const rule = CODE_MESSAGES[code as ErrorCode];
  return typeof rule === 'function' ? rule(body, field) : rule ? key(rule) : null;
}

/** The first text of a DRF value (a string or a list of strings), or null for anything else. */
function firstText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return null;
}

/** The catalogue message of an answer's `code`, when the app has its own words for it. */
export function messageForCode(data: unknown): Message | null {
  return isBody(data) ? saidByApp(data.code, data) : null;
}

const UNKNOWN = key('errors.unknown');
const MAIN_KEYS = new Set(['detail', 'error', 'non_field_errors']);

/**
 * Maps an error body to a main message and field messages, each by its code: `codes[field]`,
 * else the body's `code`. A code without words shows the server's text; non-string data gives
 * errors.unknown.
 */
export function mapErrorData(data: unknown): MappedError {
  if (typeof data === 'string') return { message: data ? { text: data } : UNKNOWN, fields: {} };
  if (!isBody(data)) return { message: UNKNOWN, fields: {} };
  const codes = isBody(data.codes) ? data.codes : null;
  let message: Message | null = null;
  const fields: Record<string, Message> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name === 'code' || name === 'codes') continue;
    const main = MAIN_KEYS.has(name);
    // Besides the texts, a body holds its code's parameters (max, plan, retry_after).
    if (!main && !Array.isArray(value) && !(codes && name in codes)) continue;
    const code = codes?.[name] ?? (main || !codes ? data.code : undefined);
    const text = firstText(value);
    const mapped = saidByApp(code, data, main ? undefined : name) ?? (text === null ? UNKNOWN : { text });
    if (main) message ??= mapped;
    else fields[name] = mapped;
  }
  if (!message && Object.keys(fields).length === 0) message = messageForCode(data) ?? UNKNOWN;
  return { message, fields };
}

/** Maps a failed call by status and body: 429, 5xx and network failures get their own messages. */
export function mapApiError(status: number, data: unknown): MappedError {
  if (status === 0) return { message: key('errors.network'), fields: {} };
  if (status === 429) return { message: key('errors.rateLimited'), fields: {} };
  if (status >= 500) return { message: key('errors.server'), fields: {} };
  return mapErrorData(data);
}

/** The contact form's mapping: 403 means logged out, main messages without words become setup.error_add. */
export function mapContactError(status: number, data: unknown): MappedError {
  if (status === 403) return { message: key('setup.must_be_logged_in'), fields: {} };
  if (status >= 500) return { message: key('setup.error_server'), fields: {} };
  const mapped = mapApiError(status, data);
  // non_field_errors shows as it is; a detail without words or an unknown body is the generic add failure.
  const hasNonField = isBody(data) && 'non_field_errors' in data;
  const unmatched = mapped.message && ('text' in mapped.message || mapped.message.key === 'errors.unknown');
  if (unmatched && !hasNonField) mapped.message = key('setup.error_add');
  return mapped;
}
