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
