/**
 * The rules of what contacts see about the owner, shared by the server and the web app:
 * the display name that alerts, the live page and every SMS carry, and the time zone
 * SMS times are written in. Pure and browser-safe.
 */
import { remembered } from './remembered.js';

/** A display name's length after trimming (characters). */
export const DISPLAY_NAME_MIN = 2;
export const DISPLAY_NAME_MAX = 40;

/** The English texts the API answers with. */
export const PROFILE_MESSAGES = {
  invalidDisplayName: `Name must have ${DISPLAY_NAME_MIN} to ${DISPLAY_NAME_MAX} characters: letters, spaces, apostrophes, hyphens and full stops.`,
  displayNameLink: 'Name must not be a web address.',
  invalidTimeZone: (value: string) =>
    `"${value.slice(0, 64)}" is not a known time zone. Use an IANA name such as Europe/Lisbon or America/New_York.`,
} as const;

export type DisplayNameError = 'setup.invalid_display_name' | 'setup.display_name_link';

// Letters in any script with their marks; spaces, apostrophes (straight or typographic),
// hyphens and full stops ("J. Silva") between them.
const DISPLAY_NAME_PATTERN = /^[\p{L}\p{M} '’.-]+$/u;
const HAS_LETTER = /\p{L}/u;
// "ana.pt", "www.x", "x.com": a full stop with letters straight after it reads as an address.
const LOOKS_LIKE_ADDRESS = /(?:^|[\s.])www\.|\.\p{L}{2,}/iu;
const INVISIBLE = /[\p{Cf}\p{Cc}]/gu;

/** The name as stored: invisible characters removed, NFC, trimmed, inner spacing collapsed. */
export function normaliseDisplayName(name: string | null | undefined): string {
  return (name ?? '').replace(INVISIBLE, '').normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** The i18n key of what is wrong with a display name, or null when it is acceptable (empty means "none"). */
export function validateDisplayName(name: string | null | undefined): DisplayNameError | null {
  const clean = normaliseDisplayName(name);
  if (clean === '') return null;
  const length = [...clean].length;
  if (length < DISPLAY_NAME_MIN || length > DISPLAY_NAME_MAX) return 'setup.invalid_display_name';
  if (!DISPLAY_NAME_PATTERN.test(clean) || !HAS_LETTER.test(clean)) return 'setup.invalid_display_name';
  if (LOOKS_LIKE_ADDRESS.test(clean)) return 'setup.display_name_link';
  return null;
}

/** The name contacts see: the display name when there is one, the username otherwise. */
export function shownName(user: { username: string; display_name?: string | null }): string {
  return normaliseDisplayName(user.display_name) || user.username;
}

// IANA names: "UTC", "Europe/Lisbon", "America/Argentina/Buenos_Aires", "Etc/GMT+1".
const IANA_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * The time zone as the engine names it (`Europe/Lisbon`), or null when the value is not
 * an IANA time zone the engine knows. Offsets such as `+01:00` are refused: they ignore
 * summer time.
 */
export function canonicalTimeZone(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 64 || !IANA_SHAPE.test(value)) return null;
  return engineZone(value);
}

// Making an Intl.DateTimeFormat is slow, and every SMS text names its zone: each answer is kept.
const engineZone = remembered(1_000, (value) => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
});

const clockFormat = remembered(
  1_000,
  (zone) => new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
);

/** The browser's own time zone, or null where the engine does not say. */
export function browserTimeZone(): string | null {
  try {
    return canonicalTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
  } catch {
    return null;
  }
}

/** "21:58" in the given time zone; "21:58 UTC" without one. Null when the time cannot be read. */
export function clockIn(at: number | string, timeZone?: string | null): string | null {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return null;
  const zone = timeZone ? canonicalTimeZone(timeZone) : null;
  if (!zone) return `${date.toISOString().slice(11, 16)} UTC`;
  const parts = clockFormat(zone).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('hour')}:${part('minute')}`;
}
