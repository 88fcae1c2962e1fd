/** A time of day (hours and minutes) in the given language, in the browser's own time zone. */
export function timeOfDay(iso: string, language: string): string {
  return new Date(iso).toLocaleTimeString(language, { hour: '2-digit', minute: '2-digit' });
}

/** A date and time in the given language, in the browser's own time zone. */
export function dateTime(iso: string, language: string): string {
  return new Date(iso).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' });
}
