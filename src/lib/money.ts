import { useTranslation } from 'react-i18next';
import { perLocale } from './locale';

const euroFormat = perLocale(
  (locale) =>
    // Whole euros without cents ("3 €"), any other amount to the cent ("0,08 €", "7,50 €").
    new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR', trailingZeroDisplay: 'stripIfInteger' }),
);

/** `value` in euros the way `language` writes it: "3 €" and "0,08 €" in Portuguese, "€3" and "€0.08" in English. */
export const formatEuro = (value: number, language: string): string => euroFormat(language).format(value);

/** A function writing an amount in euros the way the current language does. */
export function useEuro() {
  const { i18n } = useTranslation();
  return (value: number) => formatEuro(value, i18n.language);
}
