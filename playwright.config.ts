import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(
    `No Chromium at ${executablePath}: install it with "apt-get update && apt-get install -y chromium" or set CHROMIUM_PATH.`,
  );
  process.exit(1);
}

/** Flags for Debian's Chromium on a machine with no outside network. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  // Two spec files at a time, each worker with its own server and browser: a spec spends much of
  // its time waiting on the server, a service worker or a timer.
  workers: 2,
  retries: 0,
  timeout: 60_000,
  reporter: [['list']],
  globalSetup: './tests/e2e/global-setup.ts',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath, args: chromiumArgs },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
