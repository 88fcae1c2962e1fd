/**
 * The SMS of alerts nobody pressed: a check-in the owner did not end in time, and a check-in
 * ended with the duress PIN. Pure and browser-safe, laid out like the pressed alert's SMS
 * (common/sms-fit.ts): the live link always whole, the note and the position's details
 * giving way before it.
 */

import { clockIn } from './profile-rules.js';
import { fitSms, type Headline } from './sms-fit.js';
import { type AlertLanguage, type AlertLocation, mapsUrl, withReplyHint } from './sms-text.js';

export interface CheckinMessageInput {
  language: AlertLanguage;
  ownerName: string;
  timeZone?: string | null;
  /** `missed_checkin`: not ended by its due time and grace; `duress`: ended with the duress PIN. */
  reason: 'missed_checkin' | 'duress';
  /** When the check-in was due (epoch ms): the time it names, whenever the SMS goes. */
  dueAt: number;
  /** The note given when it was started. */
  note?: string | null;
  /**
   * Started with the link alone, not with the owner's proof: whoever held the link may have
   * started it, so the SMS says so and gives the note as theirs, never as the owner's words.
   */
  linkOnly?: boolean;
  /** The last position the page sent, if any. */
  location?: AlertLocation | null;
  /** When the SMS is written (epoch ms): the position's age is counted to it. */
  now: number;
  liveUrl?: string;
  /** Sent from Alerta's number, which reads replies: a missed check-in says "reply 1 if you are on your way" (never the duress alert). */
  replyHint?: boolean;
}

const TEXTS = {
  pt: {
    missed: (time: string): Headline => ['ALERTA: ', ` não confirmou que estava bem às ${time}, como tinha combinado.`],
    duress: [
      'EMERGÊNCIA: ',
      ' pode estar a agir sob coação. Não lhe ligue nem responda abertamente; peça ajuda às autoridades.',
    ] as Headline,
    missedLinkOnly: (time: string): Headline => [
      'ALERTA: um check-in iniciado com a ligação de ',
      ` não foi terminado às ${time}.`,
    ],
    note: (note: string) => ` Nota: "${note}".`,
    linkNote: (note: string) => ` Nota de quem o iniciou: "${note}".`,
    at: (url: string, accuracy: number, age: string) => `Última localização: ${url} (precisão ${accuracy} m, ${age})`,
    place: (url: string) => `Última localização: ${url}`,
    unavailable: 'Localização indisponível.',
    age: (minutes: number) =>
      minutes < 1 ? 'agora mesmo' : minutes < 60 ? `há ${minutes} min` : `há ${Math.floor(minutes / 60)} h`,
    live: 'Acompanhe',
  },
  en: {
    missed: (time: string): Headline => ['ALERT: ', ` did not check in as planned at ${time}.`],
    duress: [
      'EMERGENCY: ',
      ' may be acting under duress. Do not call or reply to them openly; contact the authorities.',
    ] as Headline,
    missedLinkOnly: (time: string): Headline => [
      'ALERT: a check-in started with the link of ',
      ` was not ended at ${time}.`,
    ],
    note: (note: string) => ` Note: "${note}".`,
    linkNote: (note: string) => ` Note from whoever started it: "${note}".`,
    at: (url: string, accuracy: number, age: string) => `Last location: ${url} (accuracy ${accuracy} m, ${age})`,
    place: (url: string) => `Last location: ${url}`,
    unavailable: 'Location unavailable.',
    age: (minutes: number) =>
      minutes < 1 ? 'just now' : minutes < 60 ? `${minutes} min ago` : `${Math.floor(minutes / 60)} h ago`,
    live: 'Follow',
  },
} as const;

/**
 * The SMS of a check-in's alert in the owner's language and time zone: what happened (and,
 * for a missed check-in, the time it was due, and whether it was started with the link alone),
 * the note (the link holder's, when so), and the last known position with
 * its accuracy and age, or that none is known. What gives way first: the note, then the
 * position's accuracy and age; the live link never.
 */
export function checkinMessage(input: CheckinMessageInput): string {
  const texts = TEXTS[input.language] ?? TEXTS.en;
  const due = clockIn(input.dueAt, input.timeZone) ?? '?';
  const missed = input.linkOnly ? texts.missedLinkOnly(due) : texts.missed(due);
  const headline = input.reason === 'duress' ? texts.duress : missed;
  const noted = input.linkOnly ? texts.linkNote : texts.note;
  const note = input.note?.trim() ? noted(input.note.trim().replace(/\s+/g, ' ')) : '';
  const { location } = input;
  const places: string[] = [];
  if (location) {
    const url = mapsUrl(location.latitude, location.longitude);
    const minutes = Math.max(0, Math.floor((input.now - new Date(location.captured_at).getTime()) / 60_000));
    const accuracy = Math.max(1, Math.round(location.accuracy));
    places.push(` ${texts.at(url, accuracy, texts.age(minutes))}`, ` ${texts.place(url)}`);
  } else {
    places.push(` ${texts.unavailable}`);
  }
  const details = [...(note ? places.map((place) => note + place) : []), ...places];
  const layout = {
    ownerName: input.ownerName,
    headline,
    details,
    ...(input.liveUrl ? { link: { label: ` ${texts.live}: `, url: input.liveUrl } } : {}),
  };
  // The duress SMS asks the contacts not to answer openly.
  return input.replyHint && input.reason !== 'duress' ? withReplyHint(layout, input.language) : fitSms(layout);
}
