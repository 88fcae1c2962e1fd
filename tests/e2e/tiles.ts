import { createServer, type Server } from 'node:http';
import { test as base, expect, type Page } from '@playwright/test';
import { type RunningServer, startServer } from './server.js';

/** A 1×1 PNG: every tile the map asks for. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface TileServer {
  /** The MAP_TILE_URL that points at it. */
  template: string;
  origin: string;
  /** The tile paths asked for so far, as `z/x/y`. */
  requests: string[];
  close(): Promise<void>;
}

/** A loopback tile server that answers any `/tiles/{z}/{x}/{y}.png` with a small PNG. */
export async function startTileServer(): Promise<TileServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const match = request.url?.match(/^\/tiles\/(\d+)\/(\d+)\/(\d+)\.png$/);
    if (!match) {
      response.writeHead(404).end();
      return;
    }
    requests.push(`${match[1]}/${match[2]}/${match[3]}`);
    response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    template: `${origin}/tiles/{z}/{x}/{y}.png`,
    origin,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

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
