import { isAppRoute } from '../../common/app-routes';

/** Lets code outside React (the API client) change route through the router. */
type Navigate = (to: string, options?: { replace?: boolean }) => void;

let navigator: Navigate | null = null;

/** Registers the router's navigate function (NavigationBridge does it). */
export function setNavigator(navigate: Navigate | null) {
  navigator = navigate;
}

/** Goes to `to` through the router, or by a full page load when no router is mounted. */
export function goTo(to: string, options?: { replace?: boolean }) {
  if (navigator) navigator(to, options);
  else window.location.assign(to);
}

/** The login page, asked to come back to `path` (one of the app's pages) once the person is in. */
export const loginThenBack = (path: string): string => `/login?next=${encodeURIComponent(path)}`;

/**
 * Where the login page goes once the person is in: `next` when it names one of the app's pages
 * (never another site, nor the login page again), else home.
 */
export function afterLogin(next: string | null): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  const url = new URL(next, 'http://app.invalid');
  if (url.origin !== 'http://app.invalid' || !isAppRoute(url.pathname) || /^\/login\/?$/i.test(url.pathname)) {
    return '/';
  }
  return url.pathname + url.search;
}

/**
 * The address a checkout or portal answer sends the browser to: its `url` when that is an http(s)
 * address (absolute or on this site), else null, so a broken answer is said instead of opened.
 */
export function redirectTarget(answer: unknown): string | null {
  const url = typeof answer === 'object' && answer !== null ? (answer as { url?: unknown }).url : undefined;
  if (typeof url !== 'string' || url.trim() === '') return null;
  try {
    const { protocol } = new URL(url, window.location.origin);
    return protocol === 'https:' || protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}
