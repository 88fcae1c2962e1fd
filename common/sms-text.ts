/**
 * The alert SMS text and its segment count. Pure and browser-safe: the server sends
 * this text and the emergency page shows it and puts it in `sms:` links offline.
 */

import { clockIn } from './profile-rules.js';

export type AlertLanguage = 'pt' | 'en';
export type AlertMode = 'real' | 'test';
/** Why the page has no position; `not_in_plan` (basic plan, no GPS) says nothing of location. */
export type LocationError = 'denied' | 'unavailable' | 'timeout' | 'unsupported' | 'not_in_plan';

export interface AlertLocation {
  latitude: number;
  longitude: number;
  /** Radius of the fix in metres. */
  accuracy: number;
  /** When the fix was taken: epoch milliseconds or an ISO 8601 string. */
  captured_at: number | string;
}

export interface AlertMessageInput {
  language: AlertLanguage;
  /** The owner's display name, or their username when they have none. */
  ownerName: string;
  /** The owner's IANA time zone: the fix time is written in it ("21:58"), else in UTC ("21:58 UTC"). */
  timeZone?: string | null;
  mode: AlertMode;
  location?: AlertLocation | null;
  locationError?: LocationError | null;
  /** A page where contacts can follow the alert, appended when given. */
  liveUrl?: string;
}

const TEXTS = {
  pt: {
    real: (name: string) => `EMERGÊNCIA: ${name} precisa de ajuda agora.`,
    test: (name: string) => `TESTE Alerta: ${name} está a testar os alertas. Não é uma emergência.`,
    at: (url: string, accuracy: number, time: string) => `Localização: ${url} (precisão ${accuracy} m, ${time})`,
    unavailable: 'Localização indisponível',
    reasons: {
      denied: 'permissão negada',
      unavailable: 'sem sinal GPS',
      timeout: 'GPS demorou demasiado',
      unsupported: 'telefone sem GPS',
    },
    live: 'Acompanhe',
  },
  en: {
    real: (name: string) => `EMERGENCY: ${name} needs help now.`,
    test: (name: string) => `TEST from Alerta: ${name} is testing alerts. This is not an emergency.`,
    at: (url: string, accuracy: number, time: string) => `Location: ${url} (accuracy ${accuracy} m, ${time})`,
    unavailable: 'Location unavailable',
    reasons: {
      denied: 'permission denied',
      unavailable: 'no GPS signal',
      timeout: 'GPS took too long',
      unsupported: 'phone has no GPS',
    },
    live: 'Follow',
  },
} as const;

/** Whether a contact receives test SMS: the first word of its name is TEST (or TESTE), any case. */
export function isTestContact(name: string): boolean {
  const first = name.trim().split(/\s+/)[0]?.toUpperCase();
  return first === 'TEST' || first === 'TESTE';
}

/** The maps link for a position, 5 decimals (about a metre). */
export function mapsUrl(latitude: number, longitude: number): string {
  return `https://maps.google.com/?q=${latitude.toFixed(5)},${longitude.toFixed(5)}`;
}

/**
 * The alert SMS in the owner's language: who needs help, real or clearly a TEST, and
 * where (maps link, accuracy and fix time) or why the location is unavailable. Accents
 * are transliterated only when that makes the message fit in fewer segments.
 */
export function alertMessage(input: AlertMessageInput): string {
  const texts = TEXTS[input.language] ?? TEXTS.en;
  const name = input.ownerName.trim() || '?';
  const parts: string[] = [input.mode === 'test' ? texts.test(name) : texts.real(name)];
  const { location } = input;
  if (location) {
    const time = clockIn(location.captured_at, input.timeZone);
    const url = mapsUrl(location.latitude, location.longitude);
    const accuracy = Math.max(1, Math.round(location.accuracy));
    parts.push(texts.at(url, accuracy, time ?? '?'));
  } else if (input.locationError !== 'not_in_plan') {
    const reason = input.locationError ? texts.reasons[input.locationError] : undefined;
    parts.push(reason ? `${texts.unavailable} (${reason}).` : `${texts.unavailable}.`);
  }
  const withoutLink = fewestSegments(parts.join(' '));
  if (!input.liveUrl) return withoutLink;
  // The live link never makes the alert longer than two parts: without room it is left out.
  const withLink = fewestSegments([...parts, `${texts.live}: ${input.liveUrl}`].join(' '));
  return smsSegments(withLink).segments <= 2 ? withLink : withoutLink;
}

/** The text, transliterated only when that makes it fit in fewer segments. */
function fewestSegments(text: string): string {
  const plain = transliterate(text);
  return smsSegments(plain).segments < smsSegments(text).segments ? plain : text;
}

const ALL_CLEAR = {
  pt: (name: string) => `Alerta: ${name} está em segurança. O alerta terminou.`,
  en: (name: string) => `Alerta: ${name} is safe now. The alert is over.`,
} as const;

/** The all-clear SMS sent when the owner presses "I'm safe": short, one segment. */
export function allClearMessage(input: { language: AlertLanguage; ownerName: string }): string {
  const text = (ALL_CLEAR[input.language] ?? ALL_CLEAR.en)(input.ownerName.trim() || '?');
  return fewestSegments(text);
}

// GSM 03.38: the basic table (one septet each) and the extension table (escape + one).
const GSM_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENDED = new Set('\f^{}\\[~]|€');

export interface SmsSegments {
  encoding: 'GSM-7' | 'UCS-2';
  /** SMS parts the text needs (0 for an empty text). */
  segments: number;
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  length: number;
}

/** How many SMS parts a text takes: GSM-7 160/153 septets, otherwise UCS-2 70/67 code units. */
export function smsSegments(text: string): SmsSegments {
  const chars = Array.from(text);
  if (chars.every((c) => GSM_BASIC.has(c) || GSM_EXTENDED.has(c))) {
    const units = chars.map((c) => (GSM_EXTENDED.has(c) ? 2 : 1));
    return { encoding: 'GSM-7', ...pack(units, 160, 153) };
  }
  // Characters outside the BMP take two code units and are never split across parts.
  return {
    encoding: 'UCS-2',
    ...pack(
      chars.map((c) => c.length),
      70,
      67,
    ),
  };
}

/**
 * How many SMS parts a text is sent and billed as: GSM-7 160 septets in one part, else 153
 * a part (extension characters count 2); otherwise UCS-2 70 UTF-16 code units, else 67 a
 * part. An escape pair or a surrogate pair is never split across parts. 0 for "".
 */
export function smsParts(text: string): number {
  return smsSegments(text).segments;
}

/** Fills parts without splitting a character (an escape pair or a surrogate pair). */
function pack(units: number[], single: number, multi: number): { segments: number; length: number } {
  const length = units.reduce((sum, n) => sum + n, 0);
  if (length === 0) return { segments: 0, length };
  if (length <= single) return { segments: 1, length };
  let segments = 1;
  let used = 0;
  for (const n of units) {
    if (used + n > multi) {
      segments += 1;
      used = 0;
    }
    used += n;
  }
  return { segments, length };
}

const PUNCTUATION: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00a0': ' ',
  ª: 'a',
  º: 'o',
};

/** Replaces characters outside GSM-7 by their closest GSM-7 form (ã → a, ç → c, ’ → '). */
export function transliterate(text: string): string {
  return Array.from(text)
    .map((c) => {
      if (GSM_BASIC.has(c) || GSM_EXTENDED.has(c)) return c;
      if (PUNCTUATION[c]) return PUNCTUATION[c];
      const bare = c.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      return Array.from(bare).every((b) => GSM_BASIC.has(b)) ? bare : c;
    })
    .join('');
}
