import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants';

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

/** Keeps the key the server issued to `user` on this device. */
export function saveDeviceKey(key: string, user: string): void {
  try {
    localStorage.setItem(DEVICE_KEY_STORAGE_KEY, JSON.stringify({ key, user } satisfies StoredDeviceKey));
  } catch {
    // Private mode or storage refused: alerts from here go as link-only alerts.
  }
}

/** Forgets this device's key (logout, account deletion). */
export function forgetDeviceKey(): void {
  try {
    localStorage.removeItem(DEVICE_KEY_STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
}
