/// <reference lib="WebWorker" />
import { createStore, get } from 'idb-keyval';
import { PENDING_ALERT_MAX_AGE_MS, RECENT_ALERT_MS } from '../common/constants';
import {
  ALERT_DB,
  CANCELLED_PARAM,
  countdownDue,
  PAGE_DB,
  type ShellAlert,
  type ShellPage,
  withCountdownShell,
} from '../common/emergency-shell';

// The emergency page's own stores (src/alert/storage.ts), opened once per worker start.
let stores: { page: ReturnType<typeof createStore>; alert: ReturnType<typeof createStore> } | undefined;
const openStores = () => {
  stores ??= {
    page: createStore(PAGE_DB.database, PAGE_DB.store),
    alert: createStore(ALERT_DB.database, ALERT_DB.store),
  };
  return stores;
};

/**
 * Opens the page's stores when the worker starts (idb-keyval opens at once), so a navigation
 * finds them open; where IndexedDB cannot open (some private modes), the worker goes on without.
 */
export function openShellStores(): void {
  try {
    openStores();
  } catch {
    stores = undefined;
  }
}

/** The token of a real emergency link (`/public/{token}/`), or nothing for any other page. */
function tokenOf(url: URL): string | undefined {
  const match = /^\/public\/([^/]+)\/$/.exec(url.pathname);
  if (!match?.[1] || url.searchParams.has(CANCELLED_PARAM)) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * What writes the countdown into the page's HTML, from the data the page kept from its last
 * visit (common/emergency-shell.ts): offline, the countdown shows as soon as the worker answers
 * instead of after the scripts and IndexedDB. Read at once, while the caller finds the cached
 * page; it leaves the page as it is when nothing is kept, when an earlier alert is still under
 * way or just sent, or when the stores cannot be read.
 */
export async function shellFromCache(url: URL): Promise<(html: string) => string> {
  const unchanged = (html: string) => html;
  const token = tokenOf(url);
  if (!token) return unchanged;
  try {
    const { page, alert } = openStores();
    const [cached, stored] = await Promise.all([get<{ data: ShellPage }>(token, page), get<ShellAlert>(token, alert)]);
    const limits = { pendingMs: PENDING_ALERT_MAX_AGE_MS, recentMs: RECENT_ALERT_MS };
    if (!cached?.data || !countdownDue(cached.data, stored, Date.now(), limits)) return unchanged;
    const data = cached.data;
    return (html) => withCountdownShell(html, data, 'cache');
  } catch {
    return unchanged;
  }
}
