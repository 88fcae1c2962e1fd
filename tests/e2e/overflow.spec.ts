import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { setProfile } from './profile.js';
import { seedUser } from './seed.js';
import { expect, expectNoOverflow, test } from './tiles.js';

/**
 * No page scrolls sideways on a small phone (320 px) or a common one (390 px): the app's pages,
 * every state of the emergency page, the test page and the live page, filled with the longest
 * names and links they can hold.
 */
const WIDTHS = [320, 390] as const;
/** 40 letters with no space: the longest display name that cannot wrap between words. */
const LONG_NAME = 'Wolfeschlegelsteinhausenbergerdorffvoral';
const LONG_CONTACT = 'Maximiliana Wolfeschlegelsteinhausenberg';

const APP_PAGES = [
  '/',
  '/login',
  '/register',
  '/legal',
  '/privacy',
  '/pricing',
  '/trial-info',
  '/cancel',
  '/verify-email',
  '/email-confirmed',
  '/reset-password',
  '/reset-password-confirm/abc/def',
  '/resend-verification',
  '/setup',
  '/no-such-page',
];

/** A premium owner with the longest name and contact names, a display name of 40 unbroken letters. */
async function longOwner(base: string, countdownSeconds: 0 | 10 = 10) {
  const user = await seedUser(base, {
    countdownSeconds,
    language: 'en',
    contacts: [
      { name: LONG_CONTACT, phone_number: '+351915200001' },
      { name: 'TEST Wolfeschlegelsteinhausenbergerdorff', phone_number: '+351915200002' },
    ],
  });
  const tokens = await setProfile(base, user.username, {
    display_name: LONG_NAME,
    time_zone: 'America/Argentina/ComodRivadavia',
  });
  return { ...user, tokens };
}

async function atEachWidth(page: Page, label: string, ready: () => Promise<unknown>) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 740 });
    await ready();
    await expectNoOverflow(page, label);
  }
}

/** A context without service workers, so the API can be answered by hand for the rarer states. */
const newContext = (browser: Browser, base: string, extra: Parameters<Browser['newContext']>[0] = {}) =>
  browser.newContext({ baseURL: base, serviceWorkers: 'block', locale: 'en-GB', ...extra });

test('the app’s pages, logged out and logged in with long names', async ({ browser, server }) => {
  const owner = await longOwner(server.url);
  for (const signedIn of [false, true]) {
    const context = await newContext(browser, server.url);
    try {
      if (signedIn) {
        await context.addInitScript(
          ([access, refresh]) => {
            localStorage.setItem('alerta.access', access as string);
            localStorage.setItem('alerta.refresh', refresh as string);
          },
          [owner.tokens.access, owner.tokens.refresh],
        );
      }
      const page = await context.newPage();
      for (const path of APP_PAGES) {
        await page.goto(path);
        await atEachWidth(page, `${path}${signedIn ? ' (logged in)' : ''}`, async () => {
          await expect(page.locator('main h1, h1').first()).toBeVisible();
          if (signedIn && path === '/setup') await expect(page.getByText(LONG_CONTACT, { exact: true })).toBeVisible();
        });
      }
    } finally {
      await context.close();
    }
  }
});

test('every state of the emergency page, and the test page', async ({ browser, server }) => {
  const owner = await longOwner(server.url);
  const emergency = `/public/${owner.token}/`;
  const heading = `Alert from ${LONG_NAME}`;

  async function inState(
    label: string,
    answer: ((context: BrowserContext) => Promise<void>) | null,
    reach: (page: Page) => Promise<unknown>,
  ) {
    const context = await newContext(browser, server.url);
    try {
      await answer?.(context);
      const page = await context.newPage();
      await page.goto(emergency);
      await reach(page);
      await atEachWidth(page, label, () => Promise.resolve());
    } finally {
      await context.close();
    }
  }
  const cancel = async (page: Page) => {
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByText('Alert cancelled. Nothing was sent.')).toBeVisible();
  };
  const answerAlerts =
    (status: number, headers: Record<string, string> = {}) =>
    async (context: BrowserContext) => {
      await context.route('**/alerts/', (route) =>
        route.request().method() === 'POST'
          ? route.fulfill({ status, headers, contentType: 'application/json', body: '{"detail":"No."}' })
          : route.fallback(),
      );
    };

  await inState('countdown', null, (page) => expect(page.getByTestId('countdown')).toBeVisible());
  await inState('cancelled', null, cancel);
  await inState('failed', answerAlerts(400), async (page) => {
    await cancel(page);
    await page.getByRole('button', { name: 'Send the alert now' }).click();
    await expect(page.getByText(/^The alert was not accepted/)).toBeVisible();
  });
  await inState('queued', answerAlerts(429, { 'retry-after': '600' }), async (page) => {
    await cancel(page);
    await page.getByRole('button', { name: 'Send the alert now' }).click();
    await expect(page.getByTestId('queued')).toBeVisible();
  });
  await inState(
    'inactive',
    async (context) => {
      // What the server answers for a link whose plan has lapsed: the page without its data in
      // it, whose own request for the data then gets the 402.
      await context.route(`**/public/${owner.token}/`, async (route) =>
        route.request().resourceType() === 'document'
          ? route.fulfill({ response: await route.fetch({ url: new URL('/alert.html', server.url).href }) })
          : route.fallback(),
      );
      await context.route(`**/api/emergency/public/${owner.token}/`, (route) =>
        route.fulfill({ status: 402, contentType: 'application/json', body: '{"detail":"No plan."}' }),
      );
    },
    (page) => expect(page.getByRole('alert')).toBeVisible(),
  );
  await inState('sent, with the live link', null, async (page) => {
    await cancel(page);
    await page.getByRole('button', { name: 'Send the alert now' }).click();
    await expect(page.getByTestId('sent')).toBeVisible();
    await expect(page.getByRole('link', { name: /\/a\// })).toBeVisible();
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
  });

  const context = await newContext(browser, server.url);
  try {
    const page = await context.newPage();
    await page.goto('/public/not-a-real-token-at-all-0123456789/');
    await atEachWidth(page, 'invalid link', () => expect(page.getByRole('alert')).toBeVisible());
    await page.goto(`/test/${owner.token}/`);
    await atEachWidth(page, 'test page', () => expect(page.getByTestId('message')).toBeVisible());
  } finally {
    await context.close();
  }
});

test('the live page: active with its map, resolved, and unknown', async ({ browser, server }) => {
  const owner = await longOwner(server.url);
  const res = await fetch(`${server.url}/api/emergency/public/${owner.token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({
      mode: 'real',
      location: { latitude: 38.72225, longitude: -9.13934, accuracy: 25, captured_at: new Date().toISOString() },
    }),
  });
  const alert = (await res.json()) as { id: string; public_id: string };
  await fetch(`${server.url}/api/live/${alert.public_id}/ack/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bartholomew-Wolfeschlegelsteinhausenberger' }),
  });
  const context = await newContext(browser, server.url);
  try {
    const page = await context.newPage();
    await page.goto(`/a/${alert.public_id}`);
    await atEachWidth(page, 'live page, active', async () => {
      await expect(page.getByRole('heading', { name: `${LONG_NAME} needs help` })).toBeVisible();
      await expect(page.getByTestId('live-map')).toHaveAttribute('data-ready', 'true');
    });
    // Lowering an alert takes the owner's proof: their session.
    const resolved = await fetch(`${server.url}/api/emergency/public/${owner.token}/alerts/${alert.id}/resolve/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.tokens.access}` },
      body: JSON.stringify({ notify: false }),
    });
    expect(resolved.status).toBe(200);
    await atEachWidth(page, 'live page, resolved', () =>
      expect(page.getByTestId('live-state')).toHaveAttribute('data-state', 'resolved'),
    );
    await page.goto('/a/not-a-real-alert-id-at-all');
    await atEachWidth(page, 'live page, unknown', () =>
      expect(page.getByText(/^(Esta ligação não existe|This link does not exist)\.$/)).toBeVisible(),
    );
  } finally {
    await context.close();
  }
});
