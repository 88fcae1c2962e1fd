import { perLocale } from './locale';

/** The zone's own place, from its IANA name ("Europe/Lisbon" → "Lisbon"); none for the Etc/ offsets. */
function place(zone: string): string {
  if (zone.startsWith('Etc/')) return '';
  return (zone.split('/').at(-1) ?? zone).replaceAll('_', ' ');
}

/** The zone's time as Intl names it in `locale` today ("Hora da Europa Ocidental"), or '' for a zone Intl does not know. */
function genericName(zone: string, locale: string): string {
  try {
    const format = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'longGeneric' });
    return format.formatToParts(new Date()).find((part) => part.type === 'timeZoneName')?.value ?? '';
  } catch {
    return '';
  }
}

/** Each locale's zone names, made once: a select lists some four hundred. */
const namesIn = perLocale((locale) => ({ locale, names: new Map<string, string>() }));

/**
 * A time zone as a person reads it, in their language: Intl's name for its time and the place
 * ("Hora da Europa Ocidental (Lisbon)", "Western European Time (Lisbon)"), not its IANA name.
 */
export function timeZoneName(zone: string, language: string): string {
  const { locale, names } = namesIn(language);
  let name = names.get(zone);
  if (name === undefined) {
    const generic = genericName(zone, locale);
    const city = place(zone);
    if (!generic) name = city || zone;
    else name = city && !generic.includes(city) ? `${generic} (${city})` : generic;
    names.set(zone, name);
  }
  return name;
}

/** `zones` with their names in `language`, in that language's alphabetical order of the names. */
export function namedTimeZones(zones: readonly string[], language: string): { zone: string; name: string }[] {
  const { locale } = namesIn(language);
  const collator = new Intl.Collator(locale);
  return zones
    .map((zone) => ({ zone, name: timeZoneName(zone, language) }))
    .sort((a, b) => collator.compare(a.name, b.name) || collator.compare(a.zone, b.zone));
}
