import type { Page, Request } from '@playwright/test';
import { expect, test } from './emergency-fixtures.js';
import { seedUser } from './seed.js';

/** The seeded users' password (tests/e2e/seed.ts). */
const PASSWORD = 'correct horse 42';

/** Collects this page's alert POSTs as they leave (the service worker's own fetches come from the page's). */
function alertPosts(page: Page): Request[] {
  const posts: Request[] = [];
  page.on('request', (request) => {
    if (
      request.method() === 'POST' &&
      /\/api\/emergency\/public\/[^/]+\/alerts\/$/.test(new URL(request.url()).pathname)
    )
      posts.push(request);
  });
  return posts;
}

/** Whether the server took the alert as the owner's (`proven` in its answer). */
async function provenOf(request: Request): Promise<boolean | undefined> {
  const answer = await request.response();
  return answer ? ((await answer.json()) as { proven?: boolean }).proven : undefined;
}

const storedKey = (page: Page) =>
  page.evaluate(() => (JSON.parse(localStorage.getItem('alerta.device-key') ?? 'null') as { key: string } | null)?.key);

test('the owner signs in, opens the emergency page, presses: the alert carries the device key and is the owner’s', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 0 });
  await page.goto('/login');
  await page.getByLabel('Nome de utilizador ou e-mail').fill(user.username);
  await page.getByLabel('Palavra-passe').fill(PASSWORD);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('heading', { name: `Olá, ${user.username}` })).toBeVisible();
  await expect.poll(() => storedKey(page)).toBeTruthy();
  const key = await storedKey(page);

  const posts = alertPosts(page);
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
  expect(posts).toHaveLength(1);
  expect(await posts[0]!.headerValue('x-alerta-device-key')).toBe(key);
  expect((await posts[0]!.response())?.status()).toBe(201);
  expect(await provenOf(posts[0]!)).toBe(true);
  // The page already has its key: no "Is this your phone?".
  await expect(page.getByTestId('owner-sign-in')).toHaveCount(0);
});

test('a page with no key of its own (an iPhone icon) offers the sign-in; afterwards its alerts are the owner’s', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 0, language: 'en' });
  const posts = alertPosts(page);
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
  expect(await posts[0]!.headerValue('x-alerta-device-key')).toBeNull();

  await page.getByText('Is this your phone? Sign in once to make this button yours').click();
  await page.getByLabel('Username or e-mail').fill(user.username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('owner-signed-in')).toBeVisible();
  const key = await storedKey(page);
  expect(key).toBeTruthy();
  // Only the key stays: no session of the app on this page's storage.
  expect(await page.evaluate(() => localStorage.getItem('alerta.access'))).toBeNull();

  await page.getByRole('button', { name: 'Send a new alert' }).click();
  await expect.poll(() => posts.length).toBe(2);
  expect(await posts[1]!.headerValue('x-alerta-device-key')).toBe(key);
  expect(await provenOf(posts[1]!)).toBe(true);
});
