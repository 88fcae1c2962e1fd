/**
 * The error catalogue of SPEC §8: server answers (DRF shape, texts in DESIGN.md §3)
 * turned into translation keys, with field errors kept under their fields.
 */

/** Something to show: a translation key with parameters, or the server's raw text. */
export type Message = { key: string; params?: Record<string, string | number> } | { text: string };

export interface MappedError {
  /** The main message (detail, non_field_errors, or a catalogue match); null when only fields failed. */
  message: Message | null;
  /** One message per failing field. */
  fields: Record<string, Message>;
}

const key = (name: string, params?: Record<string, string | number>): Message =>
  params ? { key: name, params } : { key: name };

/** Texts matched case-insensitively by a fragment, in order (SPEC §8, DESIGN.md §3). */
const TEXT_RULES: [fragments: string[], key: string][] = [
  [['international format'], 'setup.invalid_phone_format'],
  [['at least 9 digits'], 'setup.phone_too_short'],
  [['number must have at most'], 'setup.phone_too_long'],
  [['name is required'], 'setup.required_name'],
  [['name must have'], 'setup.invalid_name'],
  [['phone number is required'], 'setup.required_phone'],
  [['relationship'], 'setup.invalid_relationship'],
  [['already in your contacts'], 'setup.phone_already_exists'],
  [['active subscription is required', 'subscription is needed'], 'setup.premium_required_to_add'],
  [['email_not_verified', 'email not verified'], 'errors.emailNotVerified'],
  [['username already exists', 'user with that username'], 'errors.usernameExists'],
  [
    ['already registered with this e-mail', 'already registered with this email', 'email already exists'],
    'errors.emailExists',
  ],
  [['password is too short', 'too short'], 'errors.passwordTooShort'],
  [['too common'], 'errors.passwordTooCommon'],
  [['entirely numeric', 'only digits'], 'errors.passwordAllDigits'],
  [['at least one digit'], 'errors.passwordNoDigit'],
  [["didn't match", 'did not match', 'do not match', "don't match"], 'errors.passwordsDontMatch'],
  [['valid email', 'valid e-mail'], 'errors.invalidEmail'],
  [['invalid credentials', 'unable to log in', 'no active account'], 'errors.invalidCredentials'],
  [['accept the terms'], 'errors.termsRequired'],
  [['invalid or expired token'], 'reset.invalid_link'],
  [['invalid user'], 'reset.invalid_user'],
  [['this field is required'], 'errors.fieldRequired'],
];

/** The catalogue message for one server text; `field` names the field it came under. */
export function messageForText(text: string, field?: string): Message {
  if (text.startsWith('CONTACT_LIMIT_REACHED')) {
    const [, max = '', plan = ''] = text.split(/::?/);
    return key('setup.contact_limit', { max, plan });
  }
  const lower = text.toLowerCase();
  if (lower.includes('may not be blank') || lower.includes('cannot be empty')) {
    return field && field !== 'non_field_errors'
      ? key('errors.fieldBlank', { field })
      : key('errors.fieldBlankGeneric');
  }
  for (const [fragments, name] of TEXT_RULES) {
    if (fragments.some((fragment) => lower.includes(fragment))) return key(name);
  }
  return { text };
}

/** The first text of a DRF value (a string or a list of strings), or null for anything else. */
function firstText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return null;
}

/**
 * Server codes whose English texts the app says in the person's language: every answer the
 * billing routes give carries one.
 */
const CODE_KEYS: Record<string, string> = {
  already_subscribed: 'billing.already_subscribed',
  same_plan: 'billing.same_plan',
  no_subscription: 'billing.no_subscription',
  payment_provider_error: 'billing.provider_error',
  invalid_plan: 'billing.invalid_plan',
};

/** The catalogue message of an answer's `code`, when the app has its own words for it. */
export function messageForCode(data: unknown): Message | null {
  const code = typeof data === 'object' && data !== null ? (data as { code?: unknown }).code : undefined;
  return typeof code === 'string' && CODE_KEYS[code] ? key(CODE_KEYS[code]) : null;
}

const UNKNOWN = key('errors.unknown');
const MAIN_KEYS = new Set(['detail', 'error', 'non_field_errors']);

/** Maps an error body to a main message and field messages. Non-string data gives errors.unknown. */
export function mapErrorData(data: unknown): MappedError {
  const coded = messageForCode(data);
  if (coded) return { message: coded, fields: {} };
  if (typeof data === 'string') return { message: data ? messageForText(data) : UNKNOWN, fields: {} };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { message: UNKNOWN, fields: {} };
  let message: Message | null = null;
  const fields: Record<string, Message> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name === 'code') continue;
    const text = firstText(value);
    const mapped = text === null ? UNKNOWN : messageForText(text, name);
    if (MAIN_KEYS.has(name)) message ??= mapped;
    else fields[name] = mapped;
  }
  if (!message && Object.keys(fields).length === 0) message = UNKNOWN;
  return { message, fields };
}

/** Maps a failed call by status and body: 429, 5xx and network failures get their own messages. */
export function mapApiError(status: number, data: unknown): MappedError {
  if (status === 0) return { message: key('errors.network'), fields: {} };
  if (status === 429) return { message: key('errors.rateLimited'), fields: {} };
  if (status >= 500) return { message: key('errors.server'), fields: {} };
  return mapErrorData(data);
}

/** The contact form's mapping: 403 means logged out, unmatched main texts become setup.error_add. */
export function mapContactError(status: number, data: unknown): MappedError {
  if (status === 403) return { message: key('setup.must_be_logged_in'), fields: {} };
  if (status >= 500) return { message: key('setup.error_server'), fields: {} };
  const mapped = mapApiError(status, data);
  // non_field_errors shows as it is; an unmatched detail or unknown body is the generic add failure.
  const hasNonField = typeof data === 'object' && data !== null && 'non_field_errors' in data;
  const unmatched = mapped.message && ('text' in mapped.message || mapped.message.key === 'errors.unknown');
  if (unmatched && !hasNonField) mapped.message = key('setup.error_add');
  return mapped;
}
