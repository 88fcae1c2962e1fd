/**
 * The locale Intl writes each of the app's languages in: Portugal's Portuguese (Intl's `pt` is
 * Brazil's), and Ireland's English, a euro country's.
 */
const INTL_LOCALES: Record<string, string> = { pt: 'pt-PT', en: 'en-IE' };

/** The Intl locale for one of the app's languages (any other language as it is). */
export const intlLocale = (language: string): string => INTL_LOCALES[language] ?? language;

/**
 * One Intl formatter per locale, made on first use and kept: a formatter is slow to make and
 * cheap to use.
 */
export function perLocale<T>(make: (locale: string) => T): (language: string) => T {
  const made = new Map<string, T>();
  return (language) => {
    const locale = intlLocale(language);
    let found = made.get(locale);
    if (found === undefined) {
      found = make(locale);
      made.set(locale, found);
    }
    return found;
  };
}
