/**
 * The web app's routes (SPEC §2), one list for both sides: the app's router has exactly these,
 * and the server answers any other page address with the app's not-found page and HTTP 404.
 */
export const APP_ROUTES = [
  '/',
  '/setup',
  '/legal',
  '/privacy',
  '/pricing',
  '/login',
  '/register',
  '/verify-email',
  '/email-confirmed',
  '/reset-password',
  '/reset-password-confirm/:uid/:token',
  '/trial-info',
  '/cancel',
  '/resend-verification',
] as const;

const PATTERNS = APP_ROUTES.map(
  (route) => new RegExp(`^${route.replace(/:[a-z]+/g, '[^/]+').replace(/\/$/, '')}/?$`, 'i'),
);

/** Whether a path (no query) is one of the app's pages; a trailing slash and any letter case are allowed, as the router allows them. */
export const isAppRoute = (pathname: string): boolean => PATTERNS.some((pattern) => pattern.test(pathname));

/**
 * The pages drawn at build time, one copy per language (scripts/prerender-pages.ts): the same for
 * every visitor who is not logged in, so a first visit shows the page before the app's script
 * has arrived. The server sends the copy in the visitor's language for the exact path with no
 * query; the app then takes over the drawn page (src/main.tsx).
 */
export const PRERENDERED_ROUTES = ['/pricing', '/login', '/register', '/legal', '/privacy'] as const;
export type PrerenderedRoute = (typeof PRERENDERED_ROUTES)[number];

/** Where the build writes `route`'s copy in `language`, under the built app's folder. */
export const prerenderedFile = (route: PrerenderedRoute, language: string): string => `pages${route}.${language}.html`;

/**
 * What a drawn page was drawn for (its root's `data-prerendered`): the app takes it over only when
 * its own first render is the same, and draws the page anew otherwise (a later year in the footer,
 * the copy opened at another address).
 */
export const prerenderKey = (language: string, year: number, path: string): string => `${language} ${year} ${path}`;
