import { useTranslation } from 'react-i18next';

// Euro prices as Portugal and Ireland write them ("3 €", "€3").
const NUMBER_LOCALES: Record<string, string> = { pt: 'pt-PT', en: 'en-IE' };

/** A function writing an amount in euros the way the current language does. */
export function useEuro() {
  const { i18n } = useTranslation();
  return (value: number) =>
    new Intl.NumberFormat(NUMBER_LOCALES[i18n.language] ?? i18n.language, {
      style: 'currency',
      currency: 'EUR',
      // Whole euros without cents ("3 €"), any other amount to the cent ("0,08 €", "7,50 €").
      minimumFractionDigits: Number.isInteger(value) ? 0 : 2,
    }).format(value);
}
