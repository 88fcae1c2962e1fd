import path from 'node:path';
import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';
import { PREACT_FOR_REACT } from './scripts/vite-plugins.js';

// The emergency and live pages ship on Preact (preactForEmergencyPage): their tests render them on Preact too.
const preactPageTests = [
  'src/alert/**/*.test.{ts,tsx}',
  'src/live/**/*.test.{ts,tsx}',
  'tests/unit/live/**/*.test.{ts,tsx}',
];

// Exact names only: a plain `react` alias would also rewrite every `react/…` path it was not meant for.
const exactly = (targets: Record<string, string>) =>
  Object.entries(targets).map(([name, replacement]) => ({
    find: new RegExp(`^${name.replaceAll('/', '\\/')}$`),
    replacement,
  }));

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        // The service-worker registration module only exists in Vite builds.
        resolve: {
          alias: {
            'virtual:pwa-register/react': path.resolve(import.meta.dirname, 'tests/unit/stubs/pwa-register-react.ts'),
          },
        },
        test: {
          name: 'unit',
          environment: 'jsdom',
          include: [
            'tests/unit/**/*.test.{ts,tsx}',
            'common/**/*.test.ts',
            'src/**/*.test.{ts,tsx}',
            'sw/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...preactPageTests],
          setupFiles: ['tests/unit/setup.ts'],
        },
      },
      {
        plugins: [react()],
        resolve: {
          alias: exactly({
            ...PREACT_FOR_REACT,
            // Vitest compiles JSX in development mode.
            'react/jsx-dev-runtime': 'preact/compat/jsx-dev-runtime',
            '@testing-library/react': '@testing-library/preact',
          }),
        },
        test: {
          name: 'unit-preact',
          environment: 'jsdom',
          include: preactPageTests,
          setupFiles: ['tests/unit/setup-preact.ts'],
          // Nothing from node_modules that these tests load imports React (jest-dom, idb-keyval, leaflet,
          // workbox-window): a package that did would get React from Node, past the aliases, unless listed
          // in server.deps.inline.
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          globalSetup: ['tests/server/global-setup.ts'],
          setupFiles: ['tests/server/setup.ts'],
          include: ['tests/server/**/*.test.ts', 'tests/build/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // The files share one module graph per worker instead of importing the whole server
          // again each (most of a file's time otherwise); each test builds its own app, database
          // and data directory, and setup.ts puts back what a test may change (the clock).
          isolate: false,
          // Two files at a time: a file spends much of its time waiting on SQLite, PostgreSQL,
          // Redis or a child process, so two keep both cores busy.
          maxWorkers: 2,
        },
      },
      {
        // Chromium, WebKit and Firefox driving the built app (`npm run test:engines`).
        test: {
          name: 'engines',
          environment: 'node',
          include: ['tests/engines/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
