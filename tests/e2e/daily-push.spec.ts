import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, test as base, expect, type Page } from '@playwright/test';
// @ts-expect-error http_ece (web-push's own encryption library) ships no types.
import ece from 'http_ece';
import { DEVICE_KEY_HEADER, DEVICE_KEY_STORAGE_KEY } from '../../common/constants.js';
import { DAILY_REMINDER_HASH, type PushPayload } from '../../common/push.js';
import { seedUser } from './seed.js';
import { type RunningServer, startServer } from './server.js';

// The daily check-in's reminder, end to end: the server sends it at the due time by Web Push
// (encrypted and VAPID-signed, to a push service on loopback with its own certificate, as
// tests/server/checkin-push.test.ts does), the test decrypts it as the phone's push service
// would hand it over, and DevTools delivers it to the service worker (Chromium only). The
// worker shows it with "I'm OK"; the click on that action is dispatched inside the worker, which
// checks in with the device key the page mirrored for it when the owner signed in on the page.

const PASSWORD = 'correct horse 42';

/** A server that takes push endpoints on loopback (PUSH_ALLOW_PRIVATE), rate limits lifted for seeding. */
const test = base.extend<object, { server: RunningServer }>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as the first argument.
    async ({}, use) => {
      const server = await startServer({ BENCH_NO_RATE_LIMIT: '1', PUSH_ALLOW_PRIVATE: '1' });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },
});

/** The push service: every message the server posts to it, by endpoint path. */
const received = new Map<string, Buffer>();
let pushService: Server;
let pushBase = '';
let certDir = '';

test.beforeAll(async () => {
  certDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-daily-push-'));
  const [key, cert] = [path.join(certDir, 'key.pem'), path.join(certDir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  pushService = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.set(request.url ?? '', Buffer.concat(chunks));
      response.statusCode = 201;
      response.end();
    });
  });
  await new Promise<void>((resolve) => pushService.listen(0, '127.0.0.1', resolve));
  pushBase = `https://127.0.0.1:${(pushService.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => pushService.close(resolve));
  rmSync(certDir, { recursive: true, force: true });
});

async function api<T>(base: string, route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const answer = await fetch(`${base}${route}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  return { status: answer.status, body: (await answer.json().catch(() => null)) as T };
}

interface Daily {
  status: string;
  last_ok_at: string | null;
  next_due_at: string | null;
}

/**
 * An owner whose daily check-in falls due 15 to 75 seconds from now (the schedule is a time of
 * day, to the minute, and a time already passed this minute is tomorrow's).
 */
async function ownerDueInAMinute(base: string) {
  const user = await seedUser(base, { language: 'en' });
  const { body } = await api<{ access: string }>(base, '/api/users/auth/login/', {
    method: 'POST',
    body: JSON.stringify({ username: user.username, password: PASSWORD }),
  });
  const authorization = `Bearer ${body.access}`;
  const minutes = new Date().getUTCSeconds() < 45 ? 1 : 2;
  const time = new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);
  const set = await api<Daily>(base, '/api/users/me/daily-checkin/', {
    method: 'PUT',
    headers: { authorization },
    body: JSON.stringify({ enabled: true, time, every_days: 1, grace_minutes: 60 }),
  });
  expect(set.status).toBe(200);
  const daily = async () =>
    (await api<Daily>(base, '/api/users/me/daily-checkin/', { headers: { authorization } })).body;
  return { user, setAt: set.body.last_ok_at, daily };
}

/** A browser's push subscription keys, as a phone's push service would hold them. */
function phoneKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, auth: randomBytes(16).toString('base64url'), p256dh: ecdh.getPublicKey('base64url') };
}

/** The service worker of `page`'s context, reached through DevTools: push delivery and its notifications. */
async function workerOf(context: BrowserContext, page: Page, base: string) {
  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const r of updated) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  const activated = new Set<string>();
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) if (v.status === 'activated') activated.add(v.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  const registrationId = () => registrations.get(`${base}/`) ?? '';
  await expect.poll(() => activated.has(registrationId())).toBe(true);
  const shown = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return (await registration.getNotifications()).map((n) => ({
        title: n.title,
        tag: n.tag,
        actions: (n as Notification & { actions: { action: string; title: string }[] }).actions.map((a) => ({
          action: a.action,
          title: a.title,
        })),
      }));
    });
  return {
    shown,
    /**
     * Delivers `payload` as the push service would. DevTools answers at once without saying
     * whether the worker got it (once seen dropped on a busy machine): delivered again while no
     * notification shows; the tag keeps one.
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
     * A click on the notification's `action`, dispatched inside the worker (no automation
     * protocol clicks a system notification). The windows the worker asks to open are noted:
     * a script's event carries no user gesture, so the browser may refuse to open them.
     */
    click(action: string) {
      const worker = context.serviceWorkers()[0];
      if (!worker) throw new Error('no service worker in this context');
      return worker.evaluate(async (action) => {
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
        const [notification] = await scope.registration.getNotifications({ tag: 'daily-checkin' });
        if (!notification) return 'no notification';
        scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification, action }));
        return 'clicked';
      }, action);
    },
    opened: () =>
      context.serviceWorkers()[0]?.evaluate(() => (self as unknown as { openedByTest?: string[] }).openedByTest ?? []),
  };
}

/** The page's own sign-in ("Is this your phone?"), as the owner fills it. */
async function signInOnPage(page: Page, username: string) {
  await page.getByText('Is this your phone? Sign in once to make this button yours').click();
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('owner-signed-in')).toBeVisible();
}

test('the daily reminder’s "I’m OK" checks in from the notification with the page’s key; with none it opens the page on the button', async ({
  page,
  context,
  browser,
  server,
}) => {
  test.setTimeout(180_000);
  const { user, setAt, daily } = await ownerDueInAMinute(server.url);
  await context.grantPermissions(['notifications'], { origin: server.url });
  // The owner's phone: the page opened as the reminder opens it (no countdown), signed in on it.
  await page.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  const owner = await workerOf(context, page, server.url);
  await signInOnPage(page, user.username);
  const key = (await page.evaluate((name) => JSON.parse(localStorage.getItem(name) ?? 'null'), DEVICE_KEY_STORAGE_KEY))
    ?.key as string;
  expect(key).toBeTruthy();
  // This phone's browser registers for reminders with its key (a real push service is out of reach here).
  const phone = phoneKeys();
  const subscribed = await api(server.url, `/api/emergency/public/${user.token}/push-subscriptions/`, {
    method: 'POST',
    headers: { [DEVICE_KEY_HEADER]: key },
    body: JSON.stringify({
      endpoint: `${pushBase}/phone/${user.username}`,
      keys: { p256dh: phone.p256dh, auth: phone.auth },
    }),
  });
  expect(subscribed.status).toBe(201);

  // At the due time the server pushes the reminder.
  await expect.poll(() => received.has(`/phone/${user.username}`), { timeout: 100_000, intervals: [1_000] }).toBe(true);
  const plain = ece
    .decrypt(received.get(`/phone/${user.username}`), {
      version: 'aes128gcm',
      privateKey: phone.ecdh,
      authSecret: phone.auth,
    })
    .toString();
  const payload = JSON.parse(plain) as PushPayload;
  expect(payload).toEqual({
    title: 'are you OK today?',
    body: expect.stringMatching(/^It is time for your daily check-in\./),
    data: {
      kind: 'daily-reminder',
      token: user.token,
      url: `${server.url}/public/${user.token}/${DAILY_REMINDER_HASH}`,
      language: 'en',
    },
  });
  expect((await daily()).status).toBe('due');

  // A phone holding no key (its key gone, or the link alone): "I'm OK" opens the page on the
  // button, nothing is sent.
  const linkOnly = await browser.newContext({ baseURL: server.url });
  await linkOnly.grantPermissions(['notifications'], { origin: server.url });
  const stranger = await linkOnly.newPage();
  await stranger.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  const strangersWorker = await workerOf(linkOnly, stranger, server.url);
  await strangersWorker.deliver(plain);
  await expect
    .poll(strangersWorker.shown)
    .toEqual([{ title: 'are you OK today?', tag: 'daily-checkin', actions: [{ action: 'ok', title: 'I’m OK' }] }]);
  await stranger.close();
  expect(await strangersWorker.click('ok')).toBe('clicked');
  await expect.poll(strangersWorker.opened).toEqual([`/public/${user.token}/${DAILY_REMINDER_HASH}`]);
  const opened = await linkOnly.newPage();
  await opened.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  await expect(opened.getByText('To check in here, sign in once on this phone.')).toBeVisible();
  await expect(opened.getByTestId('countdown')).toHaveCount(0);
  expect(await daily()).toMatchObject({ status: 'due', last_ok_at: setAt });
  await linkOnly.close();

  // The owner's phone: "I'm OK" checks in from the notification, which says so.
  await owner.deliver(plain);
  await expect
    .poll(owner.shown)
    .toEqual([{ title: 'are you OK today?', tag: 'daily-checkin', actions: [{ action: 'ok', title: 'I’m OK' }] }]);
  const clickedAt = Date.now();
  expect(await owner.click('ok')).toBe('clicked');
  await expect.poll(owner.shown).toEqual([{ title: 'Checked in. Thank you!', tag: 'daily-checkin', actions: [] }]);
  const after = await daily();
  expect(after.status).toBe('waiting');
  expect(after.last_ok_at).not.toBe(setAt);
  expect(Math.abs(Date.parse(after.last_ok_at as string) - clickedAt)).toBeLessThan(10_000);
  expect(await owner.opened()).toEqual([]);
});
