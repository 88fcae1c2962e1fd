/**
 * The alert SMS text and its segment count. Pure and browser-safe: the server sends
 * this text and the emergency page shows it and puts it in `sms:` links offline.
 */

import { clockIn } from './profile-rules.js';
import { transliterate } from './sms-encoding.js';
import { fitSms, type Headline, type SmsLayout } from './sms-fit.js';

export { SMS_MAX_PARTS, smsName } from './sms-fit.js';

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
  /** Sent from Alerta's number, which reads replies: a real alert says "reply 1 if you are on your way". */
  replyHint?: boolean;
}

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
    reply: ' Responda 1 se vai a caminho.',
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
    reply: ' Reply 1 if you are on your way.',
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
  const layout = {
    ownerName: input.ownerName,
    headline: input.mode === 'test' ? texts.test : texts.real,
    details,
    ...(input.liveUrl ? { link: { label: ` ${texts.live}: `, url: input.liveUrl } } : {}),
  };
  if (!input.replyHint || input.mode === 'test') return fitSms(layout);
  return withReplyHint(layout, input.language);
}

const REPLY_HINT = { pt: TEXTS.pt.reply, en: TEXTS.en.reply } as const;

/**
 * An alarm's SMS with "reply 1 if you are on your way" (it goes from Alerta's number, which reads
 * replies). The hint is part of the headline, so the details and the name's end give way first;
 * but who needs help comes before how to answer: where not even the name's start fits beside it
 * (a name that takes the text to UCS-2), the hint gives way instead.
 */
export function withReplyHint(layout: SmsLayout, language: AlertLanguage): string {
  const [before, after] = layout.headline;
  const hinted = fitSms({ ...layout, headline: [before, `${after}${REPLY_HINT[language] ?? REPLY_HINT.en}`] });
  return hinted.startsWith(`${transliterate(before)}?`) ? fitSms(layout) : hinted;
}

const ALL_CLEAR = {
  pt: ['Alerta: ', ' está em segurança. O alerta terminou.'],
  en: ['Alerta: ', ' is safe now. The alert is over.'],
} as const satisfies Record<AlertLanguage, Headline>;

/** The all-clear SMS sent when the owner presses "I'm safe": short, one part but for a very long name. */
export function allClearMessage(input: { language: AlertLanguage; ownerName: string }): string {
  return fitSms({ ownerName: input.ownerName, headline: ALL_CLEAR[input.language] ?? ALL_CLEAR.en, details: [''] });
}
