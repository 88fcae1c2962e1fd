import { type BrowserContext, expect, type Page } from '@playwright/test';

// The service worker of a page's context, reached through DevTools (Chromium only: the other
// engines have no such hook): push delivery as a push service would hand a message over, the
// notifications it shows, and a click on one of their actions.

/** A notification the worker shows, as the page reads it. */
export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  requireInteraction: boolean;
  actions: { action: string; title: string }[];
  data: unknown;
}

/**
 * Follows `page`'s service worker (the registration of `base`'s root scope): call it once the
 * page has opened a page of `base`.
 */
export async function pushWorkerOf(context: BrowserContext, page: Page, base: string) {
  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const r of updated) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  // The registrations whose worker has activated: a push is delivered to an activated worker.
  const activated = new Set<string>();
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) if (v.status === 'activated') activated.add(v.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  const registrationId = () => registrations.get(`${base}/`) ?? '';
  await expect.poll(() => activated.has(registrationId())).toBe(true);
  const shown = (): Promise<ShownNotification[]> =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return (await registration.getNotifications()).map((n) => ({
        title: n.title,
        body: n.body,
        tag: n.tag,
        requireInteraction: n.requireInteraction,
        actions: (n as Notification & { actions: { action: string; title: string }[] }).actions.map((a) => ({
          action: a.action,
          title: a.title,
        })),
        data: n.data as unknown,
      }));
    });
  return {
    shown,
    /**
     * Delivers `payload` as the push service would. DevTools hands the push over and answers at
     * once, without saying whether the worker got it: on a machine busy with other tests one such
     * delivery was once dropped (no notification in 15 s, where it shows within 50 ms). It is
     * delivered again while no notification shows; a notification's tag keeps one, so however
     * many arrive, one is expected.
     */
    async deliver(payload: string) {
      for (let tries = 0; tries < 4 && (await shown()).length === 0; tries += 1) {
        await cdp.send('ServiceWorker.deliverPushMessage', {
          origin: base,
          registrationId: registrationId(),
          data: payload,
        });
        await expect
          .poll(shown, { timeout: 5_000 })
          .not.toEqual([])
          .catch(() => undefined);
      }
    },
    /**
     * A click on the action `action` of the notification tagged `tag`, dispatched inside the
     * worker (no automation protocol clicks a system notification). The windows the worker asks
     * to open are noted: a script's event carries no user gesture, so the browser may refuse to
     * open them.
     */
    click(action: string, tag: string) {
      const worker = context.serviceWorkers()[0];
      if (!worker) throw new Error('no service worker in this context');
      return worker.evaluate(
        async ([action, tag]) => {
          // Runs in the worker: its globals, typed here by hand (the tests compile against the DOM's).
          const scope = self as unknown as {
            clients: { openWindow(url: string): Promise<unknown> };
            registration: ServiceWorkerRegistration;
            NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
            dispatchEvent(event: Event): boolean;
            openedByTest?: string[];
          };
          scope.openedByTest = [];
          const openWindow = scope.clients.openWindow.bind(scope.clients);
          scope.clients.openWindow = (url: string) => {
            scope.openedByTest?.push(url);
            return openWindow(url).catch(() => null);
          };
          const [notification] = await scope.registration.getNotifications({ tag });
          if (!notification) return 'no notification';
          scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification, action }));
          return 'clicked';
        },
        [action, tag] as const,
      );
    },
    /** The windows the worker asked to open since the last `click`. */
    opened: () =>
      context.serviceWorkers()[0]?.evaluate(() => (self as unknown as { openedByTest?: string[] }).openedByTest ?? []),
  };
}
