import { readDeviceKey } from '../../lib/device-key';
import { isRegistered, needsHomeScreen, noteRegistered, pushSupported, type RemindersHere } from '../reminders-here';
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

export { needsHomeScreen };

/**
 * Asked on the owner's gesture, never before: when a check-in starts (the reminder is why the
 * page wants to notify), and on the daily check-in's first "I'm OK today" or its "Remind me
 * here". Subscribes this browser and registers it with the server, once: a subscription already
 * registered under this device's key is not sent again (the server keeps one per device key and
 * PUSH_SUBSCRIPTIONS_MAX per owner). Only on a device of the owner's (one with a device key): the
 * server takes reminders for no other, so a phone where the owner never signed in is not asked to
 * notify. Any refusal only means no notification: the e-mail reminder still goes.
 */
export async function offerReminders(
  token: string,
  publicKey: string | null | undefined,
  /** Called just before the browser is asked (never when something else answers first). */
  onAsked?: () => void,
): Promise<RemindersHere> {
  if (needsHomeScreen()) return 'home-screen';
  if (!pushSupported()) return 'unsupported';
  if (!readDeviceKey()) return 'no-key';
  // The page's data not loaded yet (or kept from before push): nothing asked, offered again later.
  if (!publicKey) return 'off';
  try {
    // First, while the tap's user activation lasts (Safari and Firefox ask only then).
    onAsked?.();
    const permission = await Notification.requestPermission();
    if (permission === 'denied') return 'denied';
    if (permission !== 'granted') return 'off';
    const registration = await navigator.serviceWorker.ready;
    const subscription =
      (await registration.pushManager.getSubscription()) ??
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
    const json = subscription.toJSON();
    if (isRegistered(json.endpoint)) return 'on';
    const answer = await subscribePush(token, json);
    // The server answers 201 with no body, which `call` does not count as ok.
    if (!answer.ok && answer.status !== 201) return answer.code === 'push_subscriptions_full' ? 'full' : 'failed';
    if (json.endpoint) noteRegistered(json.endpoint);
    return 'on';
  } catch {
    // No push service (a private window, a browser without one).
    return 'failed';
  }
}
