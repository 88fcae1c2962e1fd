/// <reference lib="WebWorker" />
import {
  CHECKIN_REMINDER_HASH,
  type CheckinReminderData,
  DAILY_ACTIONS,
  type DailyReminderData,
  type PushPayload,
  REMINDER_ACTIONS,
} from '../common/push';

declare const self: ServiceWorkerGlobalScope;

const isReminder = (data: unknown): data is CheckinReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'checkin-reminder';

const isDailyReminder = (data: unknown): data is DailyReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'daily-reminder';

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
    tag: 'daily-checkin',
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

/**
 * A tap on a reminder, "I'm safe", "Open" or the notification itself: the emergency page opens
 * on its check-in. Ending a check-in needs the owner's proof, the page's device key, which a
 * worker cannot read (it lives in the page's localStorage), and the PIN when one is set; the page
 * sends it with both (queued here when offline) and shows what became of it.
 */
export async function onReminderClick(data: unknown): Promise<void> {
  if (!isReminder(data) && !isDailyReminder(data)) return;
  // Same origin only, and never the alert countdown: the page is opened to say "I'm safe".
  return openPage(`${new URL(data.url, self.location.href).pathname}${CHECKIN_REMINDER_HASH}`);
}

export function setUpPush(): void {
  self.addEventListener('push', (event) => {
    const payload = event.data?.json() as PushPayload | undefined;
    if (payload) event.waitUntil(showReminder(payload));
  });
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(onReminderClick(event.notification.data));
  });
}
