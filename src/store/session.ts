import type { StateCreator } from 'zustand';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY, USER_CACHE_KEY } from '../../common/constants';
import type { User } from '../api/types';
import type { Store } from './index';

export interface SessionSlice {
  access: string | null;
  refresh: string | null;
  user: User | null;
  /** `loading` while the user is fetched at start; `ready` afterwards. */
  status: 'loading' | 'ready';
  /** The user could not be fetched (no network, server error): `user` is the one last seen, if any. */
  loadFailed: boolean;
  setTokens(access: string, refresh?: string | null): void;
  setUser(user: User | null): void;
  setStatus(status: 'loading' | 'ready'): void;
  clearSession(): void;
}

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Private mode: the session lasts for this page only.
  }
}

/** Both tokens as stored now (another tab may have changed them). */
export function storedTokens(): { access: string | null; refresh: string | null } {
  return { access: read(ACCESS_TOKEN_KEY), refresh: read(REFRESH_TOKEN_KEY) };
}

/** The user as last fetched, kept so a start without the server still shows who is logged in. */
export function cachedUser(): User | null {
  try {
    const user = JSON.parse(read(USER_CACHE_KEY) ?? 'null') as User | null;
    return user && typeof user.username === 'string' && typeof user.profile === 'object' ? user : null;
  } catch {
    return null;
  }
}

/** The session's data as a fresh page load sees it: tokens from localStorage, no user yet. */
export function initialSession(): Pick<SessionSlice, 'access' | 'refresh' | 'user' | 'status' | 'loadFailed'> {
  const { access, refresh } = storedTokens();
  return { access, refresh, user: null, status: access ? 'loading' : 'ready', loadFailed: false };
}

/** The session: both tokens (kept across reloads in localStorage) and the loaded user. */
export const createSessionSlice: StateCreator<Store, [], [], SessionSlice> = (set, get) => ({
  ...initialSession(),
  setTokens(access, refresh) {
    write(ACCESS_TOKEN_KEY, access);
    // The server rotates refresh tokens; keep the old one only when none came back.
    const nextRefresh = refresh ?? get().refresh;
    write(REFRESH_TOKEN_KEY, nextRefresh);
    set({ access, refresh: nextRefresh });
  },
  setUser(user) {
    write(USER_CACHE_KEY, user && JSON.stringify(user));
    set({ user, loadFailed: false });
  },
  setStatus(status) {
    set({ status });
  },
  clearSession() {
    write(ACCESS_TOKEN_KEY, null);
    write(REFRESH_TOKEN_KEY, null);
    write(USER_CACHE_KEY, null);
    set({ access: null, refresh: null, user: null, status: 'ready', loadFailed: false });
  },
});

/**
 * Keeps this tab's session in step with the others': tokens another tab refreshed are taken
 * over, and a logout there is a logout here. Returns the function that stops listening.
 */
export function followOtherTabs(store: { getState(): SessionSlice; setState(partial: Partial<SessionSlice>): void }) {
  const onStorage = (event: StorageEvent) => {
    if (event.key !== null && event.key !== ACCESS_TOKEN_KEY && event.key !== REFRESH_TOKEN_KEY) return;
    const { access, refresh } = storedTokens();
    if (access === store.getState().access && refresh === store.getState().refresh) return;
    if (!refresh) store.setState({ access: null, refresh: null, user: null, status: 'ready', loadFailed: false });
    else store.setState({ access, refresh });
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}
