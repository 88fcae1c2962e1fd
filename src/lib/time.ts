import { perLocale } from './locale';

const timeOfDayFormat = perLocale((locale) => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }));
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
