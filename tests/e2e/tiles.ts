import { test as base, expect, type Page } from '@playwright/test';
import { type RunningServer, startServer } from './server.js';
import { startTileServer, type TileServer } from './tile-server.js';

/**
 * `server` with its map tiles from `tiles`, a loopback tile server; rate limits lifted, as these
 * tests register many users from one address.
 */
export const test = base.extend<object, { tiles: TileServer; server: RunningServer }>({
  tiles: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as the first argument.
    async ({}, use) => {
      const tiles = await startTileServer();
      await use(tiles);
      await tiles.close();
    },
    { scope: 'worker' },
  ],
  server: [
    async ({ tiles }, use) => {
      const server = await startServer({ MAP_TILE_URL: tiles.template, BENCH_NO_RATE_LIMIT: '1' });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },
});

/** Fails with the elements that stick out when the page scrolls sideways. */
export async function expectNoOverflow(page: Page, label: string) {
  const result = await page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    // Inside the map, tiles past its edge are clipped by the map itself.
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((el) => !el.closest('.leaflet-container') && el.scrollWidth > el.clientWidth + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.getAttribute('class')} (${el.scrollWidth}px)`);
    return { scroll: root.scrollWidth, width, wide };
  });
  expect(result.scroll, `${label} at ${result.width}px: ${result.wide.join(', ')}`).toBeLessThanOrEqual(result.width);
}

export { expect };
