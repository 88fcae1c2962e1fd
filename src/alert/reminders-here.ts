import { REMINDERS_REGISTERED_KEY } from '../../common/push';
import { readDeviceKey } from '../lib/device-key';
import { isIos } from './sms';

/**
 * Whether this browser gets the owner's reminders (a check-in's, the daily check-in's) by Web Push:
 * - `on`: notifications allowed, and this browser's subscription registered with the server
 *   under this device's key;
 * - `off`: not yet (never asked, or asked and dismissed, or registered under another key);
 * - `denied`: notifications blocked for this site;
 * - `unsupported`: no Push API here (or no service worker);
 * - `home-screen`: an iPhone outside the home-screen icon (Web Push only reaches that, iOS 16.4+);
 * - `no-key`: no device key here: the server takes subscriptions only from the owner's devices;
 * - `full`: the server already sends them to PUSH_SUBSCRIPTIONS_MAX devices of the owner's;
 * - `failed`: the subscription or its registration did not go through.
 * Whatever the answer, the e-mail reminder still goes.
 */
export type RemindersHere = 'on' | 'off' | 'denied' | 'unsupported' | 'home-screen' | 'no-key' | 'full' | 'failed';

// REMINDERS_REGISTERED_KEY: where this browser notes the subscription it registered, and under which device key.
interface Registered {
  endpoint: string;
  /** The device key's last characters: a new key (signed in again) registers again. */
  key: string;
}

const keyTail = (key: string) => key.slice(-8);

const standalone = () =>
  window.matchMedia?.('(display-mode: standalone)').matches === true ||
  (navigator as Navigator & { standalone?: boolean }).standalone === true;

/** On an iPhone, Web Push only reaches a page opened from its home-screen icon (iOS 16.4+). */
export const needsHomeScreen = () => isIos() && (!('PushManager' in window) || !standalone());

/** Whether this browser has the Push API and a service worker to receive it. */
export const pushSupported = () =>
  'Notification' in window && 'PushManager' in window && 'serviceWorker' in navigator && !!navigator.serviceWorker;

function readRegistered(): Registered | null {
  try {
    const stored = JSON.parse(localStorage.getItem(REMINDERS_REGISTERED_KEY) ?? 'null') as Partial<Registered> | null;
    return stored && typeof stored.endpoint === 'string' && typeof stored.key === 'string'
      ? { endpoint: stored.endpoint, key: stored.key }
      : null;
  } catch {
    return null;
  }
}

/** Whether `endpoint` is the subscription this browser registered under this device's key. */
export function isRegistered(endpoint: string | undefined): boolean {
  const stored = readDeviceKey();
  const registered = readRegistered();
  return !!endpoint && !!stored && registered?.endpoint === endpoint && registered.key === keyTail(stored.key);
}

/** Notes that the server took `endpoint` under this device's key. */
export function noteRegistered(endpoint: string): void {
  const stored = readDeviceKey();
  if (!stored) return;
  try {
    localStorage.setItem(
      REMINDERS_REGISTERED_KEY,
      JSON.stringify({ endpoint, key: keyTail(stored.key) } satisfies Registered),
    );
  } catch {
    // Storage refused: the next offer registers the same subscription again (the server keeps one).
  }
}

/** What this browser gets now, asking nothing (no permission prompt, no request to the server). */
export async function remindersHere(): Promise<RemindersHere> {
  if (needsHomeScreen()) return 'home-screen';
  if (!pushSupported()) return 'unsupported';
  if (!readDeviceKey()) return 'no-key';
  if (Notification.permission === 'denied') return 'denied';
  if (Notification.permission !== 'granted') return 'off';
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    const subscription = await registration?.pushManager.getSubscription();
    return isRegistered(subscription?.toJSON().endpoint) ? 'on' : 'off';
  } catch {
    return 'off';
  }
}
