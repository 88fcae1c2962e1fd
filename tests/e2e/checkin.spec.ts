import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './emergency-fixtures.js';
import { type Link, startLink } from './proxy.js';
import { seedUser } from './seed.js';

/** Opens the emergency page once the service worker controls it, and cancels the alert countdown. */
async function openCancelled(page: Page, token: string) {
  await page.goto(`/public/${token}/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Alert cancelled. Nothing was sent.')).toBeVisible();
}

/** The seeded users' password (tests/e2e/seed.ts). */
const PASSWORD = 'correct horse 42';

/** Fills and sends the page's sign-in ("Is this your phone?"), already open or opened here. */
async function signIn(page: Page, username: string) {
  const form = page.getByTestId('owner-sign-in');
  if (!(await form.evaluate((details) => (details as HTMLDetailsElement).open))) {
    await page.getByText('Is this your phone? Sign in once to make this button yours').click();
  }
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('owner-signed-in')).toBeVisible();
}

/** The check-in the server holds for this token (current/), or null. */
async function current(page: Page, token: string) {
  const answer = await page.request.get(`/api/emergency/public/${token}/checkins/current/`);
  return answer.status() === 404 ? null : ((await answer.json()) as { status: string; due_at: string });
}

/** Seconds left on the page's check-in clock ("14:58 left" or "1:14:58 left"). */
async function secondsLeft(page: Page): Promise<number> {
  const text = (await page.getByTestId('checkin-left').textContent()) ?? '';
  const parts = (text.match(/^([\d:]+) left/)?.[1] ?? '').split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

async function start15(page: Page) {
  await page.getByRole('button', { name: 'Check in' }).click();
  await page.getByLabel('15 min').check();
  await page.getByRole('button', { name: 'Start check-in' }).click();
  await expect(page.getByTestId('checkin-left')).toBeVisible();
}

test('a 15 min check-in started with the link survives a reload; the owner, signed in on the page, extends it by 15 min and ends it with "I\'m safe"', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, { language: 'en', countdownSeconds: 10 });
  await openCancelled(page, user.token);
  await start15(page);
  expect(await secondsLeft(page)).toBeGreaterThan(14 * 60);
  expect((await current(page, user.token))?.status).toBe('running');

  await page.reload();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('checkin-left')).toBeVisible();
  const left = await secondsLeft(page);
  expect(left).toBeGreaterThan(14 * 60);
  expect(left).toBeLessThanOrEqual(15 * 60);

  // Only the owner postpones it: the page says so and opens its sign-in.
  await page.getByRole('button', { name: '+15 min' }).click();
  await expect(page.getByTestId('checkin-error')).toHaveText(
    'Only the owner can end or postpone this check-in: sign in once on this phone and try again.',
  );
  await page.getByRole('button', { name: 'Sign in on this phone' }).click();
  await signIn(page, user.username);
  expect(await secondsLeft(page)).toBeLessThanOrEqual(15 * 60);
  await page.getByRole('button', { name: '+15 min' }).click();
  await expect.poll(() => secondsLeft(page)).toBeGreaterThan(29 * 60);
  await page.getByRole('button', { name: 'I’m safe' }).click();
  await expect(page.getByTestId('checkin-done')).toHaveText('Check-in ended. Nobody was alerted.');
  expect((await current(page, user.token))?.status).toBe('done');
});

const linked = test.extend<{ link: Link }>({
  link: async ({ server }, use) => {
    const link = await startLink(server.port);
    await use(link);
    await link.close();
  },
  baseURL: async ({ link }, use) => {
    await use(link.url);
  },
});

async function setNetwork(context: BrowserContext, link: Link, online: boolean) {
  if (online) link.up();
  else link.down();
  await context.setOffline(!online);
}

linked(
  '"I\'m safe" offline waits in the queue and ends the check-in when the network returns',
  async ({ page, context, server, link }) => {
    const user = await seedUser(server.url, { language: 'en', countdownSeconds: 10 });
    await openCancelled(page, user.token);
    // The queued request keeps the device key it was sent with: the server takes it as the owner's.
    await signIn(page, user.username);
    await start15(page);

    await setNetwork(context, link, false);
    await page.getByRole('button', { name: 'I’m safe' }).click();
    await expect(page.getByTestId('checkin-waiting')).toHaveText(
      'No network: "I’m safe" is queued and goes out when online.',
    );
    const api = await fetch(`${server.url}/api/emergency/public/${user.token}/checkins/current/`);
    expect(((await api.json()) as { status: string }).status).toBe('running');

    await setNetwork(context, link, true);
    await expect(page.getByTestId('checkin-done')).toBeVisible({ timeout: 20_000 });
    const after = await fetch(`${server.url}/api/emergency/public/${user.token}/checkins/current/`);
    expect(((await after.json()) as { status: string }).status).toBe('done');
  },
);

test('starting a check-in offline is refused and points to the alert button and the SMS', async ({
  page,
  context,
  server,
}) => {
  const user = await seedUser(server.url, { language: 'en', countdownSeconds: 10 });
  await openCancelled(page, user.token);
  await context.setOffline(true);
  await page.getByRole('button', { name: 'Check in' }).click();
  await page.getByRole('button', { name: 'Start check-in' }).click();
  await expect(page.getByTestId('checkin-error')).toContainText('No network: a check-in needs the server');
  await context.setOffline(false);
  expect(await current(page, user.token)).toBeNull();
});
