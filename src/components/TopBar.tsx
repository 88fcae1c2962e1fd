import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { LANGUAGES, type Language } from '../../common/constants';
import { updateMe } from '../api/endpoints';
import en from '../assets/flags/en.svg';
import pt from '../assets/flags/pt.svg';
import { setLanguage } from '../i18n';
import { useStore } from '../store';

/** Switches language and, when logged in, saves it on the account (the alert SMS uses it). */
function chooseLanguage(language: Language) {
  void setLanguage(language);
  if (useStore.getState().user) updateMe({ language }).catch(() => {});
}

// SVG flags (from country-flag-icons, as the phone input's): emoji flags do not render on every system.
const FLAGS: Record<Language, string> = { pt, en };

/** Links to the main pages and the pt/en flag buttons. */
export function TopBar() {
  const { t, i18n } = useTranslation();
  const links = [
    ['/', t('nav.home')],
    ['/setup', t('nav.setup')],
    ['/pricing', t('nav.pricing')],
    ['/legal', t('nav.terms')],
    ['/privacy', t('nav.privacy')],
  ] as const;
  return (
    <header className="topbar">
      <nav aria-label={t('nav.main')}>
        {links.map(([to, label]) => (
          <NavLink key={to} to={to} end={to === '/'}>
            {label}
          </NavLink>
        ))}
      </nav>
      <fieldset className="flags">
        <legend className="visually-hidden">{t('nav.language')}</legend>
        {LANGUAGES.map((language) => {
          return (
            <button
              key={language}
              type="button"
              className="flag"
              aria-pressed={i18n.language === language}
              aria-label={t(`nav.${language}`)}
              title={t(`nav.${language}`)}
              onClick={() => chooseLanguage(language)}
            >
              <img src={FLAGS[language]} alt="" className="flag-icon" />
            </button>
          );
        })}
      </fieldset>
    </header>
  );
}
