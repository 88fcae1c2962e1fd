import { type BrowserContext, test as base, expect, type Page } from '@playwright/test';
// @ts-expect-error http_ece (web-push's own encryption library) ships no types.
import ece from 'http_ece';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants.js';
import { DAILY_REMINDER_HASH, type PushPayload } from '../../common/push.js';
import { browserPushKeys, type PushService, startPushService } from '../fixtures/push-service.js';
import { pushWorkerOf, type ShownNotification } from './push-worker.js';
import { seedUser } from './seed.js';
import { type RunningServer, startServer } from './server.js';

// The daily check-in's reminder, end to end: the server sends it at the due time by Web Push
// (encrypted and VAPID-signed, to a push service on loopback with its own certificate, as
// tests/server/checkin-push.test.ts does), the test decrypts it as the phone's push service
// would hand it over, and DevTools delivers it to the service worker (Chromium only). The
// owner, who only turned on the daily check-in, registers the phone with the page's "Remind me
// here" (its browser's push service stood in for on loopback: Chromium here reaches none). The
// worker shows the reminder with "I'm OK"; the click on that action is dispatched inside the
// worker, which checks in with the device key the page mirrored for it when the owner signed in
// on the page.

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

/** The push service: every message the server posts to it. */
let push: PushService;
test.beforeAll(async () => {
  push = await startPushService();
});
test.afterAll(() => push.close());
const receivedAt = (at: string) => push.received.find((message) => message.path === at)?.body;

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

/**
 * The browser's push service, on loopback: Chromium here reaches no real one, so its
 * `PushManager` hands out a subscription whose endpoint is the loopback push service, with the
 * keys the test decrypts with (kept in localStorage, as a browser keeps its subscription across
 * loads). The key the page subscribed with is noted for the test to compare.
 */
async function loopbackPushManager(context: BrowserContext, endpoint: string, keys: { p256dh: string; auth: string }) {
  await context.addInitScript(
    ({ endpoint, keys }) => {
      const stored = () => localStorage.getItem('e2e.push-subscribed-with');
      const subscription = () => ({
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true },
        getKey: () => null,
        unsubscribe: async () => true,
        toJSON: () => ({ endpoint, expirationTime: null, keys }),
      });
      PushManager.prototype.getSubscription = async () =>
        (stored() ? subscription() : null) as unknown as PushSubscription;
      PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
        const raw = options?.applicationServerKey;
        const key = raw instanceof Uint8Array ? raw : new Uint8Array(raw as ArrayBuffer);
        const base64url = btoa(String.fromCharCode(...key))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        localStorage.setItem('e2e.push-subscribed-with', base64url);
        return subscription() as unknown as PushSubscription;
      };
    },
    { endpoint, keys },
  );
}

/** The notifications shown, by what these steps check: title, tag and actions. */
const brief = async (shown: () => Promise<ShownNotification[]>) =>
  (await shown()).map(({ title, tag, actions }) => ({ title, tag, actions }));

/** The page's own sign-in ("Is this your phone?"), as the owner fills it. */
async function signInOnPage(page: Page, username: string) {
  await page.getByText('Is this your phone? Sign in once to make this button yours').click();
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
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
  const phone = browserPushKeys();
  const endpoint = `${push.base}/phone/${user.username}`;
  await loopbackPushManager(context, endpoint, { p256dh: phone.p256dh, auth: phone.auth });
  // The owner's phone: the page opened as the reminder opens it (no countdown), signed in on it.
  await page.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  const owner = await pushWorkerOf(context, page, server.url);
  await signInOnPage(page, user.username);
  const key = (await page.evaluate((name) => JSON.parse(localStorage.getItem(name) ?? 'null'), DEVICE_KEY_STORAGE_KEY))
    ?.key as string;
  expect(key).toBeTruthy();
  // An owner who only turned on the daily check-in (no check-in ever started here): once signed
  // in, the page shows "I'm OK today", focused, says the reminder comes by e-mail, and "Remind me
  // here" registers this phone.
  await expect(page.getByRole('button', { name: 'I’m OK today' })).toBeFocused();
  const registrations: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/push-subscriptions/')) registrations.push(request.method());
  });
  await expect(
    page.getByText(
      'The daily reminder comes by e-mail. Tap “Remind me here” to get it as a notification on this phone too.',
    ),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Remind me here' }).click();
  await expect(
    page.getByText('This phone gets the daily reminder as a notification (and the e-mail still comes).'),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remind me here' })).toHaveCount(0);
  const { body: emergency } = await api<{ push_public_key: string }>(
    server.url,
    `/api/emergency/public/${user.token}/`,
  );
  expect(await page.evaluate(() => localStorage.getItem('e2e.push-subscribed-with'))).toBe(emergency.push_public_key);
  expect((await daily()).last_ok_at).toBe(setAt);
  // Opened again as the reminder opens it (a reload would not: the page drops the #daily it was
  // opened with, and counts down), it says so without asking or registering again.
  await page.goto('about:blank');
  await page.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  await expect(
    page.getByText('This phone gets the daily reminder as a notification (and the e-mail still comes).'),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remind me here' })).toHaveCount(0);
  expect(registrations).toEqual(['POST']);

  // At the due time the server pushes the reminder to the subscription the page registered.
  await expect
    .poll(() => receivedAt(`/phone/${user.username}`) !== undefined, { timeout: 100_000, intervals: [1_000] })
    .toBe(true);
  expect(push.received.filter((message) => message.path === `/phone/${user.username}`)).toHaveLength(1);
  const plain = ece
    .decrypt(receivedAt(`/phone/${user.username}`), {
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
      owner: expect.stringMatching(/^[\w-]{16}$/),
      url: `${server.url}/public/${user.token}/${DAILY_REMINDER_HASH}`,
      language: 'en',
    },
  });
  expect((await daily()).status).toBe('due');
  // One reminder per owner on a browser: its tag names them.
  const tag = `daily-checkin-${(payload.data as { owner: string }).owner}`;

  // A phone holding no key (its key gone, or the link alone): "I'm OK" opens the page on the
  // button, nothing is sent.
  const linkOnly = await browser.newContext({ baseURL: server.url });
  await linkOnly.grantPermissions(['notifications'], { origin: server.url });
  const stranger = await linkOnly.newPage();
  await stranger.goto(`/public/${user.token}/${DAILY_REMINDER_HASH}`);
  const strangersWorker = await pushWorkerOf(linkOnly, stranger, server.url);
  await strangersWorker.deliver(plain);
  await expect
    .poll(() => brief(strangersWorker.shown))
    .toEqual([{ title: 'are you OK today?', tag, actions: [{ action: 'ok', title: 'I’m OK' }] }]);
  await stranger.close();
  expect(await strangersWorker.click('ok', tag)).toBe('clicked');
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
    .poll(() => brief(owner.shown))
    .toEqual([{ title: 'are you OK today?', tag, actions: [{ action: 'ok', title: 'I’m OK' }] }]);
  const clickedAt = Date.now();
  expect(await owner.click('ok', tag)).toBe('clicked');
  await expect.poll(() => brief(owner.shown)).toEqual([{ title: 'Checked in. Thank you!', tag, actions: [] }]);
  const after = await daily();
  expect(after.status).toBe('waiting');
  expect(after.last_ok_at).not.toBe(setAt);
  expect(Math.abs(Date.parse(after.last_ok_at as string) - clickedAt)).toBeLessThan(10_000);
  expect(await owner.opened()).toEqual([]);
});
