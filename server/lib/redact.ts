// Long URL-safe segments are secrets (alert tokens, verification keys, reset tokens,
// ids) unless they are route words: lowercase letters joined by hyphens.
const SECRET_SEGMENT = /^[A-Za-z0-9_.~%-]{16,}$/;
const ROUTE_WORDS = /^[a-z]+(-[a-z]+)*$/;

/**
 * A URL safe to log: the query string is dropped and every path segment that looks
 * like a secret is masked.
 */
export function redactUrl(url: string): string {
  const pathname = url.split('?')[0] ?? '';
  return pathname
    .split('/')
    .map((segment) => (SECRET_SEGMENT.test(segment) && !ROUTE_WORDS.test(segment) ? '…' : segment))
    .join('/');
}

// Nine or more digits, maybe spaced or punctuated, not part of a longer word or id (UUIDs keep their digits).
const PHONE_LIKE = /(?<![\w-])\+?\d(?:[ ().-]{0,2}\d){8,}(?![\w-])/g;

/** Text safe to log: every phone-like number keeps only its first 3 and last 2 digits. */
export function redactPhoneNumbers(text: string): string {
  return text.replace(PHONE_LIKE, (match) => {
    const digits = match.replace(/\D/g, '');
    return `${match.startsWith('+') ? '+' : ''}${digits.slice(0, 3)}…${digits.slice(-2)}`;
  });
}

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * A log record with phone numbers masked in its strings, errors' messages and stacks
 * included (providers echo the number they refused). Request and reply objects are
 * left to their own serializers.
 */
export function redactLogFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactPhoneNumbers(value);
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (value instanceof Error) {
    const plain: Record<string, unknown> = { type: value.name, message: value.message, stack: value.stack };
    for (const [key, field] of Object.entries(value)) plain[key] = field;
    if (value.cause !== undefined) plain.cause = value.cause;
    return redactLogFields(plain, depth + 1);
  }
  if (Array.isArray(value)) return value.map((item) => redactLogFields(item, depth + 1));
  if (!isPlain(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, redactLogFields(field, depth + 1)]));
}
