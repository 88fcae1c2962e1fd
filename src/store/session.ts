import type { StateCreator } from 'zustand';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY } from '../../common/constants';
import type { User } from '../api/types';
import type { Store } from './index';

export interface SessionSlice {
  access: string | null;
  refresh: string | null;
  user: User | null;
  /** `loading` while the user is fetched at start; `ready` afterwards. */
  status: 'loading' | 'ready';
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

/** The session's data as a fresh page load sees it: tokens from localStorage, no user yet. */
export function initialSession(): Pick<SessionSlice, 'access' | 'refresh' | 'user' | 'status'> {
  const access = read(ACCESS_TOKEN_KEY);
  return { access, refresh: read(REFRESH_TOKEN_KEY), user: null, status: access ? 'loading' : 'ready' };
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
    set({ user });
  },
  setStatus(status) {
    set({ status });
  },
  clearSession() {
    write(ACCESS_TOKEN_KEY, null);
    write(REFRESH_TOKEN_KEY, null);
    set({ access: null, refresh: null, user: null, status: 'ready' });
  },
});
