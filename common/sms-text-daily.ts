/**
 * The SMS of a missed daily check-in: who, since when there has been no sign of life ("no
 * check-in since Tuesday 09:41", on the owner's clock, with the date when that is more than six days ago), the last known position with its age
 * if any, and the live link, which never gives way.
 */
import { clockIn } from './profile-rules.js';
import { fitSms } from './sms-fit.js';
import { type AlertLanguage, type AlertLocation, mapsUrl, withReplyHint } from './sms-text.js';

export interface DailyMessageInput {
  language: AlertLanguage;
  ownerName: string;
  timeZone?: string | null;
  /** The last sign of life (epoch ms). */
  since: number;
  location?: AlertLocation | null;
  /** When the SMS is written: the position's age is counted to it. */
  now: number;
  liveUrl?: string;
  /** Sent from Alerta's number, which reads replies: "reply 1 if you are on your way". */
  replyHint?: boolean;
}

const TEXTS = {
  pt: {
    headline: (since: string) => ['ALERTA: ', ` não fez o check-in diário. Nenhum sinal desde ${since}.`] as const,
    at: (url: string, age: string) => `Última localização: ${url} (${age})`,
    unavailable: 'Localização desconhecida.',
    age: (minutes: number) =>
      minutes < 60
        ? `há ${minutes} min`
        : minutes < 2880
          ? `há ${Math.floor(minutes / 60)} h`
          : `há ${Math.floor(minutes / 1440)} dias`,
    live: 'Acompanhe',
    locale: 'pt-PT',
    joiner: ' às ',
  },
  en: {
    headline: (since: string) => ['ALERT: ', ` missed their daily check-in: no check-in since ${since}.`] as const,
    at: (url: string, age: string) => `Last location: ${url} (${age})`,
    unavailable: 'Location unknown.',
    age: (minutes: number) =>
      minutes < 60
        ? `${minutes} min ago`
        : minutes < 2880
          ? `${Math.floor(minutes / 60)} h ago`
          : `${Math.floor(minutes / 1440)} days ago`,
    live: 'Follow',
    locale: 'en-GB',
    joiner: ' ',
  },
} as const;

/** Beyond this, a weekday alone would name the wrong week: the date goes with it. */
const WEEKDAY_ALONE_MS = 6 * 86_400_000;

/**
 * The day of `at` on the owner's clock, in their language: its weekday ("Tuesday",
 * "terça-feira"), with its date when it is more than six days before `now` ("Tuesday 3 November").
 */
function dayOf(at: number, now: number, locale: string, timeZone?: string | null): string {
  const options: Intl.DateTimeFormatOptions =
    now - at > WEEKDAY_ALONE_MS ? { weekday: 'long', day: 'numeric', month: 'long' } : { weekday: 'long' };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: timeZone || 'UTC' }).format(at);
  } catch {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(at);
  }
}

/** The missed daily check-in's SMS in the owner's language and time zone. */
export function dailyMessage(input: DailyMessageInput): string {
  const texts = TEXTS[input.language] ?? TEXTS.en;
  const since = `${dayOf(input.since, input.now, texts.locale, input.timeZone)}${texts.joiner}${clockIn(input.since, input.timeZone) ?? '?'}`;
  const { location } = input;
  const places: string[] = [];
  if (location) {
    const url = mapsUrl(location.latitude, location.longitude);
    const minutes = Math.max(0, Math.floor((input.now - new Date(location.captured_at).getTime()) / 60_000));
    places.push(` ${texts.at(url, texts.age(minutes))}`, ` ${url}`);
  } else {
    places.push(` ${texts.unavailable}`);
  }
  const layout = {
    ownerName: input.ownerName,
    headline: texts.headline(since),
    details: places,
    ...(input.liveUrl ? { link: { label: ` ${texts.live}: `, url: input.liveUrl } } : {}),
  };
  return input.replyHint ? withReplyHint(layout, input.language) : fitSms(layout);
}
