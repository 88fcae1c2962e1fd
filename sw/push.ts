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
  PERSONAL_TOKEN_SHAPE,
  type PushPayload,
  REMINDER_ACTIONS,
} from '../common/push';
import { SW_MESSAGE, type WorkerMessage } from '../common/sw-messages';
import { sendOrQueue } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

const isReminder = (data: unknown): data is CheckinReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'checkin-reminder';

const isDailyReminder = (data: unknown): data is DailyReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'daily-reminder';

/**
 * The daily reminder's tag: one per owner at a time (two accounts on one browser keep one each),
 * and its confirmation takes its place. A reminder sent without `owner` has the plain tag.
 */
export const dailyTag = (data: DailyReminderData) =>
  typeof data.owner === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(data.owner)
    ? `daily-checkin-${data.owner}`
    : 'daily-checkin';

/**
 * How long the worker's "I'm OK" waits for the server before it is queued (ms): the owner sees
 * what became of the tap while still looking, and the queue's Idempotency-Key makes a replay of
 * one that did arrive harmless.
 */
export const DAILY_OK_TIMEOUT_MS = 6000;

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
    tag: dailyTag(data),
    requireInteraction: true,
    ...{ actions: [{ action: 'ok', title: actions.ok }] },
  });
}

/**
 * Opens the emergency page, or brings a window already on it to the front; opened for the daily
 * check-in (`#daily`), that window is asked to bring "I'm OK today" into view (it dropped the
 * hash it was opened with). A browser lets a worker open or focus a window only for a short
 * while after the tap: past it (a late answer from the server), the daily reminder's data gets
 * a notification "Couldn't check in — tap to open", whose tap opens the page.
 */
async function openPage(url: string, daily?: DailyReminderData): Promise<void> {
  const target = new URL(url, self.location.href);
  try {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    const open = windows.find((client) => new URL(client.url).pathname === target.pathname);
    if (!open) {
      await self.clients.openWindow(url);
      return;
    }
    if (target.hash === DAILY_REMINDER_HASH) open.postMessage({ type: SW_MESSAGE.showDaily } satisfies WorkerMessage);
    await open.focus();
  } catch (error) {
    if (!daily) throw error;
    const texts = DAILY_ACTIONS[daily.language] ?? DAILY_ACTIONS.en;
    await self.registration.showNotification(texts.failed, { data: daily, tag: dailyTag(daily) });
  }
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
 * tap is (same route, body and Idempotency-Key), through the alert queue, so offline, with the
 * server down or silent past `timeoutMs`, it waits and is counted at the time it was tapped. The
 * notification is replaced by a short "Checked in" (or "saved" when queued: sent when the
 * network returns where there is Background Sync, else when Alerta is next opened, as it says).
 * With no key, a token of any other shape than a personal token's (nothing else is posted with
 * the key), or any refusal (403: the key was removed or is another account's), the page opens
 * on its "I'm OK today" as a tap does.
 */
export async function checkInFromNotification(data: DailyReminderData, timeoutMs = DAILY_OK_TIMEOUT_MS): Promise<void> {
  const page = pageOf(data, DAILY_REMINDER_HASH);
  const key = await deviceKey();
  if (!key || typeof data.token !== 'string' || !PERSONAL_TOKEN_SHAPE.test(data.token)) return openPage(page, data);
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
    response = await sendOrQueue(request, timeoutMs);
  } catch {
    return openPage(page, data);
  }
  if (!response.ok) return openPage(page, data);
  const texts = DAILY_ACTIONS[data.language] ?? DAILY_ACTIONS.en;
  // 202 is the queue's answer (the server answers 200).
  const queued = 'sync' in self.registration ? texts.queued : texts.queuedOpen;
  await self.registration.showNotification(response.status === 202 ? queued : texts.done, {
    tag: dailyTag(data),
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
    return openPage(pageOf(data, DAILY_REMINDER_HASH), data);
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
