import { readDeviceKey } from '../../lib/device-key';
import { isIos } from '../sms';
import { subscribePush } from './api';

/** The VAPID public key (base64url) as the bytes `applicationServerKey` takes. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

const standalone = () =>
  window.matchMedia?.('(display-mode: standalone)').matches === true ||
  (navigator as Navigator & { standalone?: boolean }).standalone === true;

/** On an iPhone, Web Push only reaches a page opened from its home-screen icon (iOS 16.4+). */
export const needsHomeScreen = () => isIos() && (!('PushManager' in window) || !standalone());

/**
 * Asked when a check-in starts, never before: the reminder is why the page wants to notify.
 * Subscribes this browser and registers it with the server; any refusal only means no reminder.
 * Only on a device of the owner's (one with a device key): the server takes reminders for no
 * other, so a phone where the owner never signed in is not asked to notify.
 */
export async function offerReminders(token: string, publicKey: string | null | undefined): Promise<void> {
  if (!('Notification' in window) || !('PushManager' in window) || !publicKey || !readDeviceKey()) return;
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted' || !navigator.serviceWorker) return;
    const registration = await navigator.serviceWorker.ready;
    const subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
    await subscribePush(token, subscription.toJSON());
  } catch {
    // No push service (a private window, a browser without one): the e-mail reminder still goes.
  }
}
