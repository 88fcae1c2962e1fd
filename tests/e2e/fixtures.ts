import { test as base } from '@playwright/test';
import { type RunningServer, startServer } from './server.js';

/**
 * `server`: one built server per worker, on a free port with its own DATA_DIR. The browser
 * tests register a fresh user for almost every test, all from one address, so the server runs
 * with rate limits lifted: seeding never trips the registration limit. The limits themselves
 * are covered by the server tests.
 */
export const test = base.extend<object, { server: RunningServer }>({
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as the first argument.
    async ({}, use) => {
      const server = await startServer({ BENCH_NO_RATE_LIMIT: '1' });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },
});

export { expect } from '@playwright/test';
