import { useTranslation } from 'react-i18next';

// Euro prices as Portugal and Ireland write them ("3 €", "€3").
const NUMBER_LOCALES: Record<string, string> = { pt: 'pt-PT', en: 'en-IE' };

/**
 * `value` in euros the way `language` writes it: whole euros without cents ("3 €"), any other
 * amount to the cent ("0,08 €", "7,50 €"). A page's first Intl number format costs its main
 * thread 20 to 40 ms on a desktop (ICU's start), four times that on a phone, in the middle of
 * drawing the prices; the app's amounts (whole cents under 1,000 €, no grouping, no rounding)
 * are written here exactly as Intl writes them (tests/unit/money.test.ts holds the two to the
 * same text), any other amount by Intl itself.
 */
export function formatEuro(value: number, language: string): string {
  const whole = Number.isInteger(value);
  const cents = Math.round(value * 100);
  if (cents / 100 === value && cents >= 0 && cents < 100_000 && (language === 'pt' || language === 'en')) {
    const digits = whole ? String(value) : value.toFixed(2);
    // Portugal: decimal comma, the sign after a no-break space; Ireland: the sign first.
    return language === 'pt' ? `${digits.replace('.', ',')}\u00a0€` : `€${digits}`;
  }
  return new Intl.NumberFormat(NUMBER_LOCALES[language] ?? language, {
    style: 'currency',
    currency: 'EUR',
    minimumFractionDigits: whole ? 0 : 2,
  }).format(value);
}

/** A function writing an amount in euros the way the current language does. */
export function useEuro() {
  const { i18n } = useTranslation();
  return (value: number) => formatEuro(value, i18n.language);
}
