import { randomUUID } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { setProfile } from './profile.js';
import { outboxSms, type SeededUser, seedUser } from './seed.js';
import { expect, test } from './tiles.js';

const LISBON = { latitude: 38.72225, longitude: -9.13934, accuracy: 40 };
const NAME = 'Zé Açoriano';

/** A user of the English app whose one contact, Ana, has the number `phone`. */
const seedWithAna = (base: string, phone: string) =>
  seedUser(base, { language: 'en', contacts: [{ name: 'Ana', phone_number: phone }] });

/** A real alert from Lisbon plus a second fix 200 m north: a position, its circle and a trail. */
async function alertWithTrail(base: string, user: SeededUser) {
  const captured = Date.now() - 60_000;
  const res = await fetch(`${base}/api/emergency/public/${user.token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ mode: 'real', location: { ...LISBON, captured_at: new Date(captured).toISOString() } }),
  });
  expect(res.status).toBe(201);
  const alert = (await res.json()) as { id: string; public_id: string; created_at: string };
  const moved = await fetch(`${base}/api/emergency/public/${user.token}/alerts/${alert.id}/location/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      latitude: 38.72405,
      longitude: -9.13934,
      accuracy: 15,
      captured_at: new Date().toISOString(),
    }),
  });
  expect(moved.status).toBe(201);
  return { ...alert, captured };
}

const hhmm = (at: number | string, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(at),
  );

test('the live page draws the map from the configured tiles, with the marker, circle and trail', async ({
  browser,
  server,
  tiles,
}) => {
  const user = await seedWithAna(server.url, '+351915100001');
  await setProfile(server.url, user.username, { display_name: NAME, time_zone: 'America/New_York' });
  const alert = await alertWithTrail(server.url, user);

  // The SMS names the owner and writes the fix time in the owner's zone.
  await expect
    .poll(async () => (await outboxSms(server.url)).find((m) => m.to === '+351915100001')?.body)
    .toContain(`EMERGENCY: Zé Acoriano needs help now.`);
  const sms = (await outboxSms(server.url)).find((m) => m.to === '+351915100001')?.body ?? '';
  expect(sms).toContain(`(accuracy 40 m, ${hhmm(alert.captured, 'America/New_York')})`);

  // The contact is in Tokyo: the page shows times in the contact's zone.
  const context = await browser.newContext({ baseURL: server.url, timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
  try {
    const page = await context.newPage();
    const before = tiles.requests.length;
    await page.goto(`/a/${alert.public_id}`);
    await expect(page.getByRole('heading', { name: `${NAME} needs help` })).toBeVisible();
    await expect(page.getByText(`Alert sent at ${hhmm(alert.created_at, 'Asia/Tokyo')}`)).toBeVisible();

    const map = page.getByTestId('live-map');
    await expect(map).toHaveAttribute('data-ready', 'true');
    await expect(map.locator('path.live-marker')).toBeVisible();
    await expect(map.locator('path.live-accuracy')).toBeVisible();
    // A straight line north has no width, so it counts as hidden: its two points are checked instead.
    await expect(map.locator('path.live-trail')).toHaveAttribute('d', /^M\d+ \d+L\d+ \d+$/);
    await expect(map.locator('img.leaflet-tile-loaded').first()).toBeVisible();
    expect(tiles.requests.length).toBeGreaterThan(before);
    expect(tiles.requests.every((t) => Number(t.split('/')[0]) >= 13)).toBe(true);
    await expect(map.getByRole('link', { name: '© OpenStreetMap contributors' })).toHaveAttribute(
      'href',
      'https://www.openstreetmap.org/copyright',
    );
    // The buttons that open the position in the phone's maps stay.
    await expect(page.getByRole('link', { name: 'Open in maps' })).toHaveAttribute(
      'href',
      'https://maps.google.com/?q=38.72405,-9.13934',
    );
    await expect(page.getByRole('link', { name: 'Open in the maps app' })).toBeVisible();

    // The map and its controls keep the page free of serious accessibility problems.
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  } finally {
    await context.close();
  }

  // On a phone's screen (2 pixels per CSS pixel) the tiles come from the next zoom level, shown
  // at half their 256 px, so the map is as sharp as the screen.
  const tileZoom = async (deviceScaleFactor: number) => {
    const phone = await browser.newContext({ baseURL: server.url, deviceScaleFactor });
    try {
      const page = await phone.newPage();
      await page.goto(`/a/${alert.public_id}`);
      const map = page.getByTestId('live-map');
      await expect(map).toHaveAttribute('data-ready', 'true');
      const tile = map.locator('img.leaflet-tile-loaded').first();
      await expect(tile).toBeVisible();
      const src = (await tile.getAttribute('src')) ?? '';
      // The size Leaflet lays each tile out at (CSS pixels), before any zoom animation's scale.
      return { zoom: Number(src.match(/\/tiles\/(\d+)\//)?.[1]), width: await tile.evaluate((img) => img.style.width) };
    } finally {
      await phone.close();
    }
  };
  const plain = await tileZoom(1);
  expect(plain.width).toBe('256px');
  expect(await tileZoom(2)).toEqual({ zoom: plain.zoom + 1, width: '128px' });
});

test('without tiles the map still shows the position, and without the map chunk the page works as before', async ({
  browser,
  server,
  tiles,
}) => {
  const user = await seedWithAna(server.url, '+351915100002');
  const alert = await alertWithTrail(server.url, user);
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const page = await context.newPage();
    await page.route(`${tiles.origin}/**`, (route) => route.abort());
    await page.goto(`/a/${alert.public_id}`);
    await expect(page.getByRole('heading', { name: `${user.username} needs help` })).toBeVisible();
    await expect(page.getByTestId('live-map').locator('path.live-marker')).toBeVisible();
    await expect(page.getByTestId('live-position')).toHaveAttribute('data-lat', '38.72405');

    const offline = await context.newPage();
    await offline.route('**/assets/leaflet-map-*', (route) => route.abort());
    await offline.goto(`/a/${alert.public_id}`);
    await expect(offline.getByTestId('live-position')).toHaveAttribute('data-lat', '38.72405');
    await expect(offline.getByTestId('live-map')).toHaveCount(0);
    await expect(offline.getByRole('link', { name: 'Open in maps' })).toBeVisible();
  } finally {
    await context.close();
  }
});
