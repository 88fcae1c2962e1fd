import { type Country, getCountries } from 'react-phone-number-input';
import { perLocale } from './locale';

/** Every country the phone input offers, named by Intl in the language (Portugal's Portuguese for `pt`). */
export const countryNames = perLocale((locale): Partial<Record<Country, string>> => {
  const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' });
  return Object.fromEntries(getCountries().map((country) => [country, names.of(country) ?? country]));
});
