import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import {
  asLanguage,
  DEFAULT_LANGUAGE,
  FALLBACK_LANGUAGE,
  LANG_COOKIE,
  LANG_STORAGE_KEY,
  type Language,
} from '../../common/constants';
import en from './locales/en';
import pt from './locales/pt';

/** The saved language, or Portuguese. */
export function storedLanguage(): Language {
  try {
    return asLanguage(localStorage.getItem(LANG_STORAGE_KEY));
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

/** Repeats the saved language in a cookie, for the server to send the pages it keeps drawn in it. */
export function keepLanguageCookie(language: Language = storedLanguage()): void {
  // biome-ignore lint/suspicious/noDocumentCookie: one name and a value of LANGUAGES, nothing to escape; the Cookie Store API is missing in older Safari and Firefox.
  document.cookie = `${LANG_COOKIE}=${language}; path=/; max-age=31536000; samesite=lax`;
}

/** Switches language, saves it, and keeps `<html lang>` in step. */
export async function setLanguage(language: Language): Promise<void> {
  try {
    localStorage.setItem(LANG_STORAGE_KEY, language);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  keepLanguageCookie(language);
  await i18n.changeLanguage(language);
}

i18n.on('languageChanged', (language) => {
  if (typeof document !== 'undefined') document.documentElement.lang = language;
});

void i18n.use(initReactI18next).init({
  resources: { pt: { translation: pt }, en: { translation: en } },
  lng: storedLanguage(),
  fallbackLng: FALLBACK_LANGUAGE,
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18n;
