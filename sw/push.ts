/// <reference lib="WebWorker" />
import { createStore, get, type UseStore } from 'idb-keyval';
import { pathOf } from '../common/api/paths';
import { dailyRoutes } from '../common/api/routes';
import { DEVICE_KEY_HEADER, DEVICE_KEY_STORAGE_KEY } from '../common/constants';
import {
  CHECKIN_REMINDER_HASH,
  type CheckinReminderData,
  DAILY_ACTIONS,
  DAILY_REMINDER_HASH,
  type DailyReminderData,
  DEVICE_KEY_DB,
  type PushPayload,
  REMINDER_ACTIONS,
} from '../common/push';
import { sendOrQueue } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

const isReminder = (data: unknown): data is CheckinReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'checkin-reminder';

const isDailyReminder = (data: unknown): data is DailyReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'daily-reminder';

/** The daily reminder's tag: one at a time, and its confirmation takes its place. */
const DAILY_TAG = 'daily-checkin';

/** Shows a check-in reminder with "I'm safe" and "Open"; it stays until the owner acts on it. */
export async function showReminder(payload: PushPayload): Promise<void> {
  if (isDailyReminder(payload.data)) return showDailyReminder(payload, payload.data);
  if (!isReminder(payload.data)) return;
  const actions = REMINDER_ACTIONS[payload.data.language] ?? REMINDER_ACTIONS.en;
  await self.registration.showNotification(payload.title, {
    body: payload.body,
    data: payload.data,
    tag: `checkin-${payload.data.checkin_id}`,
    requireInteraction: true,
    // `actions` is in the Notifications API, not yet in TypeScript's DOM types.
    ...{
      actions: [
        { action: 'safe', title: actions.safe },
        { action: 'open', title: actions.open },
      ],
    },
  });
}

/** The daily check-in's reminder, with "I'm OK"; one per owner at a time, it stays until acted on. */
async function showDailyReminder(payload: PushPayload, data: DailyReminderData): Promise<void> {
  const actions = DAILY_ACTIONS[data.language] ?? DAILY_ACTIONS.en;
  await self.registration.showNotification(payload.title, {
    body: payload.body,
    data,
    tag: DAILY_TAG,
    requireInteraction: true,
    ...{ actions: [{ action: 'ok', title: actions.ok }] },
  });
}

/** Opens the emergency page, or brings a window already on it to the front. */
async function openPage(url: string): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname === new URL(url, self.location.href).pathname);
  if (open) await open.focus();
  else await self.clients.openWindow(url);
}

/** The page's path on this origin (never another site's), opened with `hash`: no countdown. */
const pageOf = (data: { url: string }, hash: string) => `${new URL(data.url, self.location.href).pathname}${hash}`;

let keyStore: UseStore | undefined;

/** The device key the page mirrors for this worker (src/lib/device-key.ts), or null. */
async function deviceKey(): Promise<string | null> {
  try {
    keyStore ??= createStore(DEVICE_KEY_DB.database, DEVICE_KEY_DB.store);
    const stored = await get<{ key?: unknown }>(DEVICE_KEY_STORAGE_KEY, keyStore);
    return typeof stored?.key === 'string' && stored.key ? stored.key : null;
  } catch {
    return null;
  }
}

/**
 * The daily reminder's "I'm OK": posted from here with the page's device key, as the page's own
 * tap is (same route, body and Idempotency-Key), through the alert queue, so offline or with the
 * server down it waits and is counted at the time it was tapped. The notification is replaced
 * by a short "Checked in" (or "saved" when queued). With no key, or any refusal (403: the key
 * was removed or is another account's), the page opens on its "I'm OK today" as a tap does.
 */
export async function checkInFromNotification(data: DailyReminderData): Promise<void> {
  const page = pageOf(data, DAILY_REMINDER_HASH);
  const key = await deviceKey();
  if (!key || typeof data.token !== 'string' || !data.token) return openPage(page);
  const at = new Date().toISOString();
  const request = new Request(new URL(pathOf(dailyRoutes.ok, { token: data.token }), self.location.href), {
    method: dailyRoutes.ok.method,
    cache: 'no-store',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'idempotency-key': `daily-ok-${at}`,
      [DEVICE_KEY_HEADER]: key,
    },
    body: JSON.stringify({ at }),
  });
  let response: Response;
  try {
    response = await sendOrQueue(request);
  } catch {
    return openPage(page);
  }
  if (!response.ok) return openPage(page);
  const texts = DAILY_ACTIONS[data.language] ?? DAILY_ACTIONS.en;
  // 202 is the queue's answer (the server answers 200).
  await self.registration.showNotification(response.status === 202 ? texts.queued : texts.done, {
    tag: DAILY_TAG,
    silent: true,
  });
}

/**
 * A tap on a reminder. A check-in's ("I'm safe", "Open" or the notification itself) opens the
 * emergency page on its check-in: ending it needs the PIN when one is set, which a notification
 * cannot ask for; the page sends it with the device key (queued here when offline) and shows
 * what became of it. The daily reminder's "I'm OK" checks in from here; a tap on it opens the
 * page on its "I'm OK today".
 */
export async function onReminderClick(data: unknown, action = ''): Promise<void> {
  if (isDailyReminder(data)) {
    if (action === 'ok') return checkInFromNotification(data);
    return openPage(pageOf(data, DAILY_REMINDER_HASH));
  }
  // Same origin only, and never the alert countdown: the page is opened to say "I'm safe".
  if (isReminder(data)) return openPage(pageOf(data, CHECKIN_REMINDER_HASH));
}

export function setUpPush(): void {
  self.addEventListener('push', (event) => {
    const payload = event.data?.json() as PushPayload | undefined;
    if (payload) event.waitUntil(showReminder(payload));
  });
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(onReminderClick(event.notification.data, event.action));
  });
}
