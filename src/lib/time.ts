import { perLocale } from './locale';

const timeOfDayFormat = perLocale((locale) => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }));
const dateFormat = perLocale(
  (locale) => new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' }),
);
const dateTimeFormat = perLocale(
  (locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
);

/** A time of day (hours and minutes) in the given language, in the browser's own time zone. */
export function timeOfDay(iso: string, language: string): string {
  return timeOfDayFormat(language).format(new Date(iso));
}

/** A date and time in the given language, in the browser's own time zone. */
export function dateTime(iso: string, language: string): string {
  return dateTimeFormat(language).format(new Date(iso));
}

/** A date ("10/12/2026") in the given language, in the browser's own time zone. */
export function dateOnly(iso: string, language: string): string {
  return dateFormat(language).format(new Date(iso));
}
