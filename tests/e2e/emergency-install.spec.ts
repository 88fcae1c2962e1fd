import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from '@playwright/test';
import config, { chromiumArgs } from '../../playwright.config.js';
import { expect, test } from './emergency-fixtures.js';
import { seedUser } from './seed.js';

/**
 * Installability is checked in a persistent context with its own profile: an ordinary
 * Playwright context is incognito, where Chromium always answers `in-incognito`.
 */
async function withProfile(run: (context: BrowserContext) => Promise<void>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-profile-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: config.use?.launchOptions?.executablePath,
    args: chromiumArgs,
  });
  try {
    await run(context);
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function installabilityErrors(context: BrowserContext, url: string) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  const manifest = await cdp.send('Page.getAppManifest');
  return { page, errors: installabilityErrors.map((e) => e.errorId), manifestUrl: manifest.url };
}

test('the app and the emergency link are both installable', async ({ server }) => {
  const user = await seedUser(server.url, { countdownSeconds: 10 });
  await withProfile(async (context) => {
    const app = await installabilityErrors(context, `${server.url}/`);
    expect(app.errors).toEqual([]);
    expect(app.manifestUrl).toBe(`${server.url}/manifest.webmanifest`);

    const emergency = await installabilityErrors(context, `${server.url}/public/${user.token}/`);
    await emergency.page.getByRole('button', { name: 'Cancelar' }).click();
    expect(emergency.errors).toEqual([]);
    expect(emergency.manifestUrl).toBe(`${server.url}/public/${user.token}/manifest.webmanifest`);
  });
});

test('the per-token manifest opens the emergency page itself, and only for a live token', async ({
  request,
  server,
}) => {
  const user = await seedUser(server.url, { language: 'en' });
  const res = await request.get(`/public/${user.token}/manifest.webmanifest`);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('application/manifest+json');
  const manifest = await res.json();
  expect(manifest).toMatchObject({
    id: `/public/${user.token}/`,
    start_url: `/public/${user.token}/`,
    scope: `/public/${user.token}/`,
    display: 'standalone',
    name: 'Alerta · Emergency',
    theme_color: '#c62828',
  });
  const purposes = manifest.icons.map((i: { sizes: string; purpose: string }) => `${i.sizes} ${i.purpose}`);
  expect(purposes).toEqual(
    expect.arrayContaining(['192x192 any', '512x512 any', '192x192 maskable', '512x512 maskable']),
  );
  for (const icon of manifest.icons) expect((await request.get(icon.src)).headers()['content-type']).toBe('image/png');

  const unknown = await request.get('/public/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/manifest.webmanifest');
  expect(unknown.status()).toBe(404);
});
