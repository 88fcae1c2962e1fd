import { createStore, del, set, type UseStore } from 'idb-keyval';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants';
import { DEVICE_KEY_DB, OFFERED_ON_TAP_KEY, REMINDERS_REGISTERED_KEY } from '../../common/push';

/** The device key kept on this device, and the account it was issued to. */
export interface StoredDeviceKey {
  key: string;
  user: string;
}

/**
 * The device key stored on this device, or null. Kept in localStorage, which the app and the
 * emergency page share (same origin); an icon on the iPhone's home screen has its own storage.
 */
export function readDeviceKey(): StoredDeviceKey | null {
  try {
    const stored = JSON.parse(
      localStorage.getItem(DEVICE_KEY_STORAGE_KEY) ?? 'null',
    ) as Partial<StoredDeviceKey> | null;
    return stored && typeof stored.key === 'string' && stored.key && typeof stored.user === 'string'
      ? { key: stored.key, user: stored.user }
      : null;
  } catch {
    return null;
  }
}

let mirrorStore: UseStore | undefined;

/**
 * Mirrors the key into IndexedDB (DEVICE_KEY_DB), the one storage the service worker can read:
 * its daily reminder's "I'm OK" checks in with it (sw/push.ts). Null removes the copy. Where
 * IndexedDB cannot open (some private modes) there is no copy, and the notification opens the page.
 */
function mirror(stored: StoredDeviceKey | null): Promise<void> {
  try {
    mirrorStore ??= createStore(DEVICE_KEY_DB.database, DEVICE_KEY_DB.store);
    const done = stored ? set(DEVICE_KEY_STORAGE_KEY, stored, mirrorStore) : del(DEVICE_KEY_STORAGE_KEY, mirrorStore);
    return done.catch(() => undefined);
  } catch {
    return Promise.resolve();
  }
}

/**
 * Brings the worker's copy in line with localStorage, at every start of the app and of the
 * emergency page: a key stored before the copy existed, or forgotten by another tab, is followed.
 */
export const syncDeviceKeyMirror = (): Promise<void> => mirror(readDeviceKey());

/** Keeps the key the server issued to `user` on this device (and the worker's copy). */
export function saveDeviceKey(key: string, user: string): Promise<void> {
  try {
    localStorage.setItem(DEVICE_KEY_STORAGE_KEY, JSON.stringify({ key, user } satisfies StoredDeviceKey));
  } catch {
    // Private mode or storage refused: alerts from here go as link-only alerts.
    return Promise.resolve();
  }
  return mirror({ key, user });
}

/**
 * Ends this browser's push subscription: the reminders of the account that held the key stop
 * coming here (the server drops the subscription when the push service says it is gone).
 */
async function unsubscribePush(): Promise<void> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    const subscription = await registration?.pushManager?.getSubscription();
    await subscription?.unsubscribe();
  } catch {
    // No worker or no Push API here: nothing to end.
  }
}

/**
 * Forgets this device's key (logout, account deletion, this device removed), the worker's copy
 * too, and what went with it: this browser's push subscription and the notes about it (which
 * subscription was registered, that "I'm OK today" already asked).
 */
export function forgetDeviceKey(): Promise<void> {
  try {
    for (const key of [DEVICE_KEY_STORAGE_KEY, REMINDERS_REGISTERED_KEY, OFFERED_ON_TAP_KEY])
      localStorage.removeItem(key);
  } catch {
    // Nothing stored.
  }
  return Promise.all([mirror(null), unsubscribePush()]).then(() => undefined);
}
