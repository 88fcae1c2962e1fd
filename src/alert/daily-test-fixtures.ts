import { vi } from 'vitest';
import type { DailyView } from '../../common/api/daily';

const HOUR = 3600_000;

/** A daily check-in as the server shows it: on, and due since half an hour, unless told otherwise. */
export const dailyView = (fields: Partial<DailyView> = {}): DailyView => ({
  enabled: true,
  time: '10:00',
  every_days: 1,
  grace_minutes: 60,
  paused_until: null,
  status: 'due',
  next_due_at: new Date(Date.now() - HOUR / 2).toISOString(),
  last_ok_at: null,
  alert_id: null,
  ...fields,
});

export const PUSH_ENDPOINT = 'https://push.example/phone-1';
export const PUSH_SUBSCRIPTION = { endpoint: PUSH_ENDPOINT, keys: { p256dh: 'p'.repeat(87), auth: 'a'.repeat(22) } };

/**
 * The browser's Push API and service worker container, as a page sees them: `permission` now,
 * which `requestPermission` turns into `answer`; this browser's subscription (one already there
 * when `subscribed`, else made by `subscribe`). The container is an EventTarget, as the page's
 * `navigator.serviceWorker` is: a test dispatches the worker's messages on it.
 */
export function fakePush({
  permission = 'default',
  answer = permission,
  subscribed = false,
}: {
  permission?: NotificationPermission;
  answer?: NotificationPermission;
  subscribed?: boolean;
} = {}) {
  const notification = {
    permission,
    requestPermission: vi.fn(async () => {
      notification.permission = answer;
      return answer;
    }),
  };
  const unsubscribe = vi.fn(async () => {
    current = null;
    return true;
  });
  const made = () => ({ endpoint: PUSH_ENDPOINT, toJSON: () => PUSH_SUBSCRIPTION, unsubscribe });
  let current: ReturnType<typeof made> | null = subscribed ? made() : null;
  const subscribe = vi.fn(async (_options: PushSubscriptionOptionsInit) => {
    current = made();
    return current;
  });
  const registration = { pushManager: { getSubscription: async () => current, subscribe } };
  vi.stubGlobal('Notification', notification);
  vi.stubGlobal('PushManager', class {});
  const container = Object.assign(new EventTarget(), {
    ready: Promise.resolve(registration),
    getRegistration: async () => registration,
  });
  Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: container });
  return { requestPermission: notification.requestPermission, subscribe, unsubscribe, container };
}
