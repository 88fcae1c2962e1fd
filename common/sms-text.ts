/**
 * The alert SMS text and its segment count. Pure and browser-safe: the server sends
 * this text and the emergency page shows it and puts it in `sms:` links offline.
 */

import { clockIn } from './profile-rules.js';
import { graphemes, smsParts, smsSegments, transliterate } from './sms-encoding.js';

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

/** A text with the owner's name in it: the words before and after the name. */
type Headline = readonly [before: string, after: string];

const TEXTS = {
  pt: {
    real: ['EMERGÊNCIA: ', ' precisa de ajuda agora.'],
    test: ['TESTE Alerta: ', ' está a testar os alertas. Não é uma emergência.'],
    at: (url: string, accuracy: number, time: string) => `Localização: ${url} (precisão ${accuracy} m, ${time})`,
    place: (url: string) => `Localização: ${url}`,
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
    real: ['EMERGENCY: ', ' needs help now.'],
    test: ['TEST from Alerta: ', ' is testing alerts. This is not an emergency.'],
    at: (url: string, accuracy: number, time: string) => `Location: ${url} (accuracy ${accuracy} m, ${time})`,
    place: (url: string) => `Location: ${url}`,
    unavailable: 'Location unavailable',
    reasons: {
      denied: 'permission denied',
      unavailable: 'no GPS signal',
      timeout: 'GPS took too long',
      unsupported: 'phone has no GPS',
    },
    live: 'Follow',
  },
} as const satisfies Record<AlertLanguage, { real: Headline; test: Headline; [key: string]: unknown }>;

/** Whether a contact receives test SMS: the first word of its name is TEST (or TESTE), any case. */
export function isTestContact(name: string): boolean {
  const first = name.trim().split(/\s+/)[0]?.toUpperCase();
  return first === 'TEST' || first === 'TESTE';
}

/** The maps link for a position, 5 decimals (about a metre). */
export function mapsUrl(latitude: number, longitude: number): string {
  return `https://maps.google.com/?q=${latitude.toFixed(5)},${longitude.toFixed(5)}`;
}

/** The most SMS parts any message may take: a longer text is cut down to this, never sent longer. */
export const SMS_MAX_PARTS = 2;

/**
 * The alert SMS in the owner's language: who needs help, real or clearly a TEST, and
 * where (maps link, accuracy and fix time) or why the location is unavailable, then the
 * live link when given. Never more than two SMS parts, and a given live link is always
 * there, whole: see `fitSms` for what gives way first. Accents are transliterated only
 * when that makes the message fit in fewer parts.
 */
export function alertMessage(input: AlertMessageInput): string {
  const texts = TEXTS[input.language] ?? TEXTS.en;
  const details: string[] = [];
  const { location } = input;
  if (location) {
    const time = clockIn(location.captured_at, input.timeZone);
    const url = mapsUrl(location.latitude, location.longitude);
    const accuracy = Math.max(1, Math.round(location.accuracy));
    details.push(` ${texts.at(url, accuracy, time ?? '?')}`, ` ${texts.place(url)}`);
  } else if (input.locationError !== 'not_in_plan') {
    const reason = input.locationError ? texts.reasons[input.locationError] : undefined;
    if (reason) details.push(` ${texts.unavailable} (${reason}).`);
    details.push(` ${texts.unavailable}.`);
  }
  details.push('');
  return fitSms({
    ownerName: input.ownerName,
    headline: input.mode === 'test' ? texts.test : texts.real,
    details,
    ...(input.liveUrl ? { link: { label: ` ${texts.live}: `, url: input.liveUrl } } : {}),
  });
}

const ALL_CLEAR = {
  pt: ['Alerta: ', ' está em segurança. O alerta terminou.'],
  en: ['Alerta: ', ' is safe now. The alert is over.'],
} as const satisfies Record<AlertLanguage, Headline>;

/** The all-clear SMS sent when the owner presses "I'm safe": short, one part but for a very long name. */
export function allClearMessage(input: { language: AlertLanguage; ownerName: string }): string {
  return fitSms({ ownerName: input.ownerName, headline: ALL_CLEAR[input.language] ?? ALL_CLEAR.en, details: [''] });
}

interface SmsLayout {
  ownerName: string;
  headline: Headline;
  /** What follows the headline, from the fullest form to the barest (the last one is kept whatever happens). */
  details: readonly string[];
  /** A link that is always at the end, exactly as given. */
  link?: { label: string; url: string };
}

// Graphemes of the name kept while details can still give way; below that, details go first.
const NAME_KEEP = 16;

/**
 * The text within `SMS_MAX_PARTS`, what gives way in this order: the accents and look-alike
 * letters of the whole text (transliterated to GSM-7, which holds more than twice as much);
 * the owner's name, cut to `NAME_KEEP` graphemes; the details, from the fullest to the barest;
 * the name, down to one grapheme (or "?"). The link is never touched: any name fits in two
 * parts beside a link of up to 80 characters (APP_URL, the public id and a per-contact part),
 * and a link too long for that is still sent whole, in more parts.
 */
function fitSms(layout: SmsLayout): string {
  const clean = smsName(layout.ownerName) || '?';
  const forms = [clean, transliterate(clean)] as const;
  // The fixed words as written and transliterated, each done once.
  const words = [false, true].map((latin) => {
    const plain = latin ? transliterate : (text: string) => text;
    return {
      before: plain(layout.headline[0]),
      after: layout.details.map((detail) => plain(layout.headline[1] + detail)),
      link: layout.link ? plain(layout.link.label) + layout.link.url : '',
    };
  });
  const compose = (latin: boolean, name: string, detail: number): string => {
    const w = words[latin ? 1 : 0] as (typeof words)[number];
    return w.before + name + w.after[detail] + w.link;
  };
  const fits = (text: string) => smsParts(text) <= SMS_MAX_PARTS;
  const barest = layout.details.length - 1;
  for (let detail = 0; detail <= barest; detail++) {
    // The whole name, as written or transliterated with the rest: the fewest parts, then as written.
    const whole = [compose(false, forms[0], detail), compose(true, forms[1], detail)].filter(fits);
    const best = whole.sort((a, b) => smsParts(a) - smsParts(b))[0];
    if (best !== undefined) return best;
    const keep = detail === barest ? 1 : NAME_KEEP;
    const cut = shortened(forms, keep, (latin, name) => compose(latin, name, detail), fits);
    if (cut !== undefined) return cut;
  }
  // Not even the name's first grapheme fits (a cluster of many code points): the name gives way
  // whole. Only a link too long for two parts takes the text past them.
  return compose(true, '?', barest);
}

/**
 * The text with the name cut between graphemes to the longest that fits, keeping at least
 * `keep` graphemes: "…" marks the cut in a UCS-2 text, where it costs no change of encoding;
 * a GSM-7 text is cut cleanly. The form of the name (as written or transliterated) that keeps
 * more of it wins, as written on a tie.
 */
function shortened(
  forms: readonly [string, string],
  keep: number,
  compose: (latin: boolean, name: string) => string,
  fits: (text: string) => boolean,
): string | undefined {
  let best: { kept: number; text: string } | undefined;
  for (const latin of [false, true]) {
    const letters = graphemes(forms[latin ? 1 : 0]);
    const textOf = (kept: number): string | undefined => {
      const name = letters.slice(0, kept).join('').trimEnd();
      if (!name) return undefined;
      const bare = compose(latin, name);
      const text = smsSegments(bare).encoding === 'UCS-2' ? compose(latin, `${name}…`) : bare;
      return fits(text) ? text : undefined;
    };
    // The text grows with the name: a binary search for the most graphemes that fit.
    let [low, high] = [Math.max(keep, (best?.kept ?? 0) + 1), letters.length - 1];
    while (low <= high) {
      const mid = (low + high) >> 1;
      const text = textOf(mid);
      if (text === undefined) high = mid - 1;
      else {
        best = { kept: mid, text };
        low = mid + 1;
      }
    }
  }
  return best?.text;
}

// Bidi controls and other invisible format characters (not the joiners emoji and some scripts
// need), control characters, and a surrogate half without its other half.
const FORMAT = /\p{Cf}/gu;
const JOINERS = new Set(['\u200c', '\u200d']);
const CONTROL = /\p{Cc}/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const STRAY_MARKS = /(^|\s)\p{M}+/gu;
// More graphemes than this can never fit in two parts; longer input is not even looked at.
const NAME_GRAPHEMES_MAX = 320;
const NAME_UNITS_MAX = 4000;
// Combining marks kept on one letter (Vietnamese stacks two, Hebrew with points up to four).
const MARKS_MAX = 4;

/**
 * The owner's name as the SMS carry it: whole characters only, NFC, without control, bidi or
 * other invisible characters, spacing collapsed, no more than four combining marks on a
 * letter and none without one. Empty when nothing visible is left.
 */
export function smsName(name: string): string {
  const clean = name
    .slice(0, NAME_UNITS_MAX)
    .replace(LONE_SURROGATE, '')
    .normalize('NFC')
    .replace(FORMAT, (c) => (JOINERS.has(c) ? c : ''))
    .replace(CONTROL, ' ')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(STRAY_MARKS, '$1');
  return graphemes(clean)
    .slice(0, NAME_GRAPHEMES_MAX)
    .map((g) => {
      let marks = 0;
      return g.replace(/\p{M}/gu, (m) => (++marks > MARKS_MAX ? '' : m));
    })
    .join('');
}
