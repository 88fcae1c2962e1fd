/// <reference lib="WebWorker" />
import { pathOf } from '../common/api/paths';
import { checkinsRoutes } from '../common/api/routes';
import { CHECKIN_REMINDER_HASH, type CheckinReminderData, type PushPayload, REMINDER_ACTIONS } from '../common/push';
import { sendOrQueue } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

const isReminder = (data: unknown): data is CheckinReminderData =>
  typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'checkin-reminder';

/** Shows a check-in reminder with "I'm safe" and "Open"; it stays until the owner acts on it. */
export async function showReminder(payload: PushPayload): Promise<void> {
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

/** Opens the emergency page, or brings a window already on it to the front. */
async function openPage(url: string): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname === new URL(url, self.location.href).pathname);
  if (open) await open.focus();
  else await self.clients.openWindow(url);
}

/**
 * A tap on a reminder. "I'm safe" ends the check-in through the alert queue (sent now, or
 * when the network returns), unless a PIN is set: the notification cannot ask for it, so the
 * page opens. "Open" and a tap on the notification itself open the emergency page.
 */
export async function onReminderClick(action: string, data: unknown): Promise<void> {
  if (!isReminder(data)) return;
  // Same origin only, and never the alert countdown: the page is opened to say "I'm safe".
  const path = `${new URL(data.url, self.location.href).pathname}${CHECKIN_REMINDER_HASH}`;
  if (action !== 'safe' || data.pin === '1') return openPage(path);
  const url = new URL(pathOf(checkinsRoutes.done, { token: data.token, id: data.checkin_id }), self.location.href);
  const done = new Request(url, {
    method: 'POST',
    // The queue keeps one entry per key: one "I'm safe" per check-in.
    headers: { 'content-type': 'application/json', 'idempotency-key': `checkin-done-${data.checkin_id}` },
    body: '{}',
  });
  await sendOrQueue(done);
}

export function setUpPush(): void {
  self.addEventListener('push', (event) => {
    const payload = event.data?.json() as PushPayload | undefined;
    if (payload) event.waitUntil(showReminder(payload));
  });
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    event.waitUntil(onReminderClick(event.action, event.notification.data));
  });
}
