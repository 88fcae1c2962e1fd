import ky, { HTTPError, type Options, type ResponsePromise } from 'ky';
import { type ApiRoute, type PathArgs, pathOf } from '../../common/api/paths';
import { accountsRoutes } from '../../common/api/routes';
import i18n from '../i18n';
import { goTo } from '../lib/navigation';
import { useStore } from '../store';
import { storedTokens } from '../store/session';
import { type MappedError, mapApiError } from './errors';
import type { Tokens } from './types';

/**
 * The API's base: this origin, absolute; the contract's paths start at /api/. Where the build
 * draws pages there is no origin (undefined), and no request is made.
 */
const apiBase = () => globalThis.location?.origin;
/** Calls whose 401 is an answer (wrong password, refresh refused), not an expired session. */
const SESSION_PATHS = new Set(
  [accountsRoutes.login, accountsRoutes.refresh, accountsRoutes.logout].map((r) => pathOf(r)),
);

/** What a refresh came to: a new access token, the session refused, or no usable answer. */
export type Refreshed = { access: string } | 'rejected' | 'unavailable';

/** Thrown when a session could not be renewed for lack of an answer: the person stays logged in. */
export class SessionUnavailableError extends Error {}

const REFRESH_LOCK = 'alerta-refresh';

/** Runs `task` holding the one refresh lock shared by every tab of the app (Web Locks), else within this tab. */
function withRefreshLock<T>(task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  return locks ? (locks.request(REFRESH_LOCK, task) as Promise<T>) : task();
}

let refreshing: Promise<Refreshed> | null = null;

/**
 * Asks for a new access token: one call at a time in this tab, shared by every waiter, and one
 * at a time across tabs. The stored tokens are read inside the lock, so a tab that waited takes
 * the pair another tab just got instead of spending the replaced refresh token.
 */
export function refreshAccess(): Promise<Refreshed> {
  refreshing ??= (async () => {
    const seen = useStore.getState().access;
    return withRefreshLock(async (): Promise<Refreshed> => {
      const stored = storedTokens();
      if (!stored.refresh) return 'rejected';
      if (stored.access && stored.access !== seen) {
        useStore.getState().setTokens(stored.access, stored.refresh);
        return { access: stored.access };
      }
      try {
        const tokens = await ky
          .post(pathOf(accountsRoutes.refresh), { baseUrl: apiBase(), json: { refresh: stored.refresh }, retry: 0 })
          .json<Tokens>();
        useStore.getState().setTokens(tokens.access, tokens.refresh ?? stored.refresh);
        return { access: tokens.access };
      } catch (error) {
        // Only the server refusing the refresh token ends the session; no answer or a 5xx does not.
        const status = error instanceof HTTPError ? error.response.status : 0;
        return status === 400 || status === 401 || status === 403 ? 'rejected' : 'unavailable';
      }
    });
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Clears the session and goes to /login (the refresh token no longer works). */
function expireSession() {
  useStore.getState().clearSession();
  goTo('/login', { replace: true });
}

/**
 * The API client: JSON, Accept-Language from the current language, the bearer token;
 * a 401 with a refresh token refreshes once and retries the request once.
 */
/** Language, bearer token and JSON on every attempt, the retry after a refresh included. */
function setHeaders({ request }: { request: Request }) {
  request.headers.set('Accept', 'application/json');
  request.headers.set('Accept-Language', i18n.language || 'pt');
  const access = useStore.getState().access;
  if (access) request.headers.set('Authorization', `Bearer ${access}`);
  else request.headers.delete('Authorization');
}

const api = ky.create({
  baseUrl: apiBase(),
  // Only the forced retry after a refresh: no automatic retries of failed calls.
  retry: { limit: 1, methods: [], statusCodes: [], afterStatusCodes: [] },
  timeout: 20_000,
  hooks: {
    beforeRequest: [setHeaders],
    // The forced retry after a refresh carries the new bearer token.
    beforeRetry: [setHeaders],
    afterResponse: [
      async ({ request, response, retryCount }) => {
        // A 401 from login or refresh is an answer, not an expired session.
        if (response.status !== 401 || SESSION_PATHS.has(new URL(request.url).pathname)) return response;
        if (!useStore.getState().refresh) return response;
        if (retryCount > 0) {
          expireSession();
          return response;
        }
        // Another call already refreshed since this one was sent: just retry with the new token.
        const current = useStore.getState().access;
        if (current && request.headers.get('Authorization') !== `Bearer ${current}`) {
          return ky.retry({ delay: 0, code: 'TOKEN_REFRESHED' });
        }
        const refreshed = await refreshAccess();
        if (refreshed === 'rejected') {
          expireSession();
          return response;
        }
        if (refreshed === 'unavailable') throw new SessionUnavailableError('the session could not be renewed now');
        return ky.retry({ delay: 0, code: 'TOKEN_REFRESHED' });
      },
    ],
  },
});

/**
 * Calls a route of the API contract (common/api/routes.ts) with its method: the route's path
 * parameters first when its URL has any (typed: none may be missing), then ky's options.
 */
export function call<U extends string>(
  route: ApiRoute<U>,
  ...args: [...PathArgs<U>, options?: Options]
): ResponsePromise {
  const named = route.url.includes(':');
  const path = pathOf(route, ...((named ? args.slice(0, 1) : []) as PathArgs<U>));
  const options = (named ? args[1] : args[0]) as Options | undefined;
  return api(path, { ...options, method: route.method });
}

/** A failed call's status (0 for no answer) and its JSON body, if any. */
export async function failureOf(error: unknown): Promise<{ status: number; data: unknown }> {
  // ky has already read the body of a failed answer into `data` (JSON parsed, else text).
  if (error instanceof HTTPError) return { status: error.response.status, data: error.data };
  return { status: 0, data: undefined };
}

/** A failed call mapped through the error catalogue. */
export async function describeFailure(error: unknown): Promise<MappedError & { status: number }> {
  const { status, data } = await failureOf(error);
  return { ...mapApiError(status, data), status };
}
