import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { matchPath, useLocation } from 'react-router';
import type { APP_ROUTES } from '../../common/app-routes';
import type { Messages } from '../i18n/locales/pt';

type TabTitle = Exclude<keyof Messages['tabTitle'], 'page'>;

/** Each page's name in the browser tab: every route of the app has one (home has the app's name alone). */
const TITLES: Record<(typeof APP_ROUTES)[number], TabTitle | null> = {
  '/': null,
  '/setup': 'setup',
  '/legal': 'legal',
  '/privacy': 'privacy',
  '/pricing': 'pricing',
  '/login': 'login',
  '/register': 'register',
  '/verify-email': 'verifyEmail',
  '/email-confirmed': 'emailConfirmed',
  '/reset-password': 'resetPassword',
  '/reset-password-confirm/:uid/:token': 'resetConfirm',
  '/trial-info': 'trialInfo',
  '/cancel': 'cancel',
  '/resend-verification': 'resendVerification',
};

/** The tab title of the page at `pathname`, matched as the router matches it; not-found for any other. */
export function tabTitleOf(pathname: string): TabTitle | null {
  for (const [route, title] of Object.entries(TITLES)) {
    if (matchPath({ path: route, end: true }, pathname)) return title;
  }
  return 'notFound';
}

/** Keeps the browser tab titled after the page shown, in the person's language ("Contactos — Alerta"). */
export function PageTitle() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const title = tabTitleOf(pathname);
  const text = title ? t('tabTitle.page', { page: t(`tabTitle.${title}`) }) : t('app.name');
  useEffect(() => {
    document.title = text;
  }, [text]);
  return null;
}
