import { expect, test } from './emergency-fixtures.js';
import { seedUser } from './seed.js';

// What an iPhone needs from the emergency link: the home-screen icon and tags Safari reads,
// an address that is the manifest's start_url (Safari's "Add to Home Screen" takes the
// address), and, where there is no install button, Safari's steps and its 7-day warning.
// The same pages run in WebKit itself in tests/engines/.

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

test('the emergency page carries the tags and the 180 px icon Safari puts on the home screen', async ({
  page,
  server,
  request,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 10 });
  for (const path of ['/', `/public/${user.token}/`]) {
    await page.goto(path);
    const head = page.locator('head');
    await expect(head.locator('link[rel="apple-touch-icon"]')).toHaveAttribute('sizes', '180x180');
    await expect(head.locator('meta[name="apple-mobile-web-app-capable"]')).toHaveAttribute('content', 'yes');
    await expect(head.locator('meta[name="mobile-web-app-capable"]')).toHaveAttribute('content', 'yes');
    await expect(head.locator('meta[name="apple-mobile-web-app-title"]')).toHaveCount(1);
    await expect(head.locator('meta[name="apple-mobile-web-app-status-bar-style"]')).toHaveCount(1);
  }
  const href = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
  const icon = await request.get(href ?? '');
  expect(icon.headers()['content-type']).toBe('image/png');
  const png = await icon.body();
  // The PNG header's width and height.
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([180, 180]);
});

test('a link opened with extras in its address shows the manifest’s start_url, so Safari’s icon opens that very link', async ({
  page,
  server,
  request,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 10 });
  for (const mode of ['public', 'test']) {
    await page.goto(`/${mode}/${user.token}/?utm_source=sms#top`);
    await expect(page.locator('link[rel="manifest"]')).toHaveCount(1);
    const manifestHref = (await page.locator('link[rel="manifest"]').getAttribute('href')) ?? '';
    const manifest = await (await request.get(manifestHref)).json();
    const address = await page.evaluate(() => window.location.pathname + window.location.search + window.location.hash);
    expect(address).toBe(`/${mode}/${user.token}/`);
    expect(manifest.start_url).toBe(address);
    expect(manifest.scope).toBe(address);
  }
});

test.describe('on iPhone Safari', () => {
  test.use({ userAgent: IPHONE });

  test('the test page shows Share → Add to Home Screen and the 7-day warning, not an install button; the storage check is listed', async ({
    page,
    server,
  }) => {
    const user = await seedUser(server.url, { countdownSeconds: 10, language: 'en' });
    await page.goto(`/test/${user.token}/`);
    await expect(page.getByTestId('ios-steps')).toHaveText(
      'On iPhone: tap Share, then "Add to Home Screen" to have this alert one tap away.',
    );
    await expect(page.getByTestId('ios-data-warning')).toHaveText(
      "In Safari, unless it is added to the Home Screen, the iPhone may delete this page's saved data after 7 days without use.",
    );
    await expect(page.getByRole('button', { name: 'Install the emergency button' })).toHaveCount(0);
    const storage = page.locator('[data-check="storage"]');
    await expect(storage).toContainText('Persistent storage', { timeout: 20_000 });
    await expect(page.locator('[data-check="offline"]')).toHaveAttribute('data-result', 'pass');
  });

  test('in Portuguese too', async ({ page, server }) => {
    const user = await seedUser(server.url, { countdownSeconds: 10, language: 'pt' });
    await page.goto(`/test/${user.token}/`);
    await expect(page.getByTestId('ios-steps')).toHaveText(
      'No iPhone: toque em Partilhar e depois em «Adicionar ao ecrã principal» para ter este alerta num toque.',
    );
    await expect(page.getByTestId('ios-data-warning')).toHaveText(
      'No Safari, sem a instalar no ecrã principal, o iPhone pode apagar os dados guardados desta página após 7 dias sem uso.',
    );
    await expect(page.locator('[data-check="storage"]')).toContainText('Armazenamento persistente', {
      timeout: 20_000,
    });
  });
});
