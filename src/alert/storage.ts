import { createStore, del, get, keys, set, type UseStore } from 'idb-keyval';
import type { AlertRequest } from '../../common/api/alerts';
import { ALERT_DB, PAGE_DB } from '../../common/emergency-shell';
import type { AlertResult, PageData } from './api';

/** One store per concern: what the page shows offline, and alerts pressed but not yet accepted. */
// The service worker reads the same two stores to write the countdown into the page (sw/countdown-shell.ts).
const pageStore = createStore(PAGE_DB.database, PAGE_DB.store);
const alertStore = createStore(ALERT_DB.database, ALERT_DB.store);

export interface CachedPage {
  data: PageData;
  saved_at: number;
}

/** An alert that was pressed: `result` is empty until the server has accepted it. */
export interface StoredAlert {
  key: string;
  token: string;
  body: AlertBody;
  pressed_at: number;
  result?: AlertResult;
}

/** The alert request as the page sends and keeps it: the fix time in ISO 8601. */
export interface AlertBody {
  mode: AlertRequest['mode'];
  location: (Omit<NonNullable<AlertRequest['location']>, 'captured_at'> & { captured_at: string }) | null;
  location_error?: NonNullable<AlertRequest['location_error']>;
  /** Test alerts: the one contact chosen to get the test SMS. */
  contact_id?: string;
}

const isQuotaError = (error: unknown) =>
  error instanceof DOMException && (error.name === 'QuotaExceededError' || error.code === 22);

/** Reads, treating a missing or broken IndexedDB (private mode, old browser) as empty. */
async function read<T>(key: string, store: UseStore): Promise<T | undefined> {
  try {
    return await get<T>(key, store);
  } catch {
    return undefined;
  }
}

/**
 * Writes; when the disk is full, drops the other tokens' cached pages and tries once more.
 * Returns false when the value could not be kept, so the caller can still go on in memory.
 */
async function write(key: string, value: unknown, store: UseStore): Promise<boolean> {
  try {
    await set(key, value, store);
    return true;
  } catch (error) {
    if (!isQuotaError(error)) return false;
    try {
      for (const other of await keys<string>(pageStore)) if (other !== key) await del(other, pageStore);
      await set(key, value, store);
      return true;
    } catch {
      return false;
    }
  }
}

async function remove(key: string, store: UseStore): Promise<void> {
  try {
    await del(key, store);
  } catch {
    // Nothing stored, nothing to remove.
  }
}

/** The last known owner, contacts and settings for a token. */
export const loadPage = (token: string) => read<CachedPage>(token, pageStore);
/** Saves the server's answer for a token. */
export const savePage = (token: string, data: PageData, now = Date.now()) =>
  write(token, { data, saved_at: now } satisfies CachedPage, pageStore);
/** Forgets a token whose link no longer works. */
export const forgetPage = (token: string) => remove(token, pageStore);

/** The last alert pressed on this token, sent or still waiting. */
export const loadAlert = (token: string) => read<StoredAlert>(token, alertStore);
/** Records an alert before it is sent, and again with the server's answer. */
export const saveAlert = (alert: StoredAlert) => write(alert.token, alert, alertStore);
export const forgetAlert = (token: string) => remove(token, alertStore);
