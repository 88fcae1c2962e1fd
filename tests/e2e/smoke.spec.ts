import { expect, test } from './fixtures.js';

test('home page is in Portuguese by default and switches to English', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'pt');
  await expect(page.getByRole('link', { name: 'Criar conta' })).toBeVisible();
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('link', { name: 'Create account' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.reload();
  await expect(page.getByRole('link', { name: 'Create account' })).toBeVisible();
});

test('emergency links serve the emergency entry', async ({ page, request }) => {
  const res = await request.get('/public/anything/');
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain('/assets/alert');
  await page.goto('/test/anything/');
  await expect(page.locator('h1')).toBeVisible();
});

test('health answers and unknown API paths are JSON 404s', async ({ request }) => {
  const health = await request.get('/api/health');
  expect(health.status()).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'ok', db: 'ok' });
  const missing = await request.get('/api/nothing-here/');
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toEqual({ detail: 'Not found.', code: 'not_found' });
});

test('hashed assets are cached for a year, pages are revalidated', async ({ request }) => {
  const html = await request.get('/');
  expect(html.headers()['cache-control']).toBe('no-cache');
  const asset = (await html.text()).match(/\/assets\/[^"]+\.js/)?.[0];
  expect(asset).toBeTruthy();
  const res = await request.get(asset!);
  expect(res.headers()['cache-control']).toContain('immutable');
});
