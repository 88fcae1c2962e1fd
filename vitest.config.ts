import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';
import { PREACT_FOR_REACT } from './scripts/vite-plugins.js';

// The emergency and live pages ship on Preact (preactForEmergencyPage): their tests render them on Preact too.
const PREACT_DIRS = ['src/alert/', 'src/live/', 'tests/unit/live/'];
const preactPageTests = PREACT_DIRS.map((dir) => `${dir}**/*.test.{ts,tsx}`);
const UNIT_DIRS = ['tests/unit/', 'common/', 'src/', 'sw/'];

/**
 * The unit test files that replace a module (`vi.mock`). The unit projects share one module graph
 * and one jsdom per worker across files (setting up jsdom and importing the app again for each
 * file was most of their time); a module replaced in one file would stay replaced in the next, so
 * these files run in projects of their own, each file on its own.
 */
const replacingModules = UNIT_DIRS.flatMap((dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => path.posix.join(dir, file))
    .filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(file, 'utf8'))),
);
const onPreact = (file: string) => PREACT_DIRS.some((dir) => file.startsWith(dir));

// Exact names only: a plain `react` alias would also rewrite every `react/…` path it was not meant for.
const exactly = (targets: Record<string, string>) =>
  Object.entries(targets).map(([name, replacement]) => ({
    find: new RegExp(`^${name.replaceAll('/', '\\/')}$`),
    replacement,
  }));

/** The app's tests, on React. */
const onReact = {
  plugins: [react()],
  // The service-worker registration module only exists in Vite builds.
  resolve: {
    alias: {
      'virtual:pwa-register/react': path.resolve(import.meta.dirname, 'tests/unit/stubs/pwa-register-react.ts'),
    },
  },
  environment: 'jsdom',
  setupFiles: ['tests/unit/setup.ts'],
};

/** The emergency and live pages' tests, on Preact. */
const onPreactPages = {
  plugins: [react()],
  resolve: {
    alias: exactly({
      ...PREACT_FOR_REACT,
      // Vitest compiles JSX in development mode.
      'react/jsx-dev-runtime': 'preact/compat/jsx-dev-runtime',
      '@testing-library/react': '@testing-library/preact',
    }),
  },
  environment: 'jsdom',
  // Nothing from node_modules that these tests load imports React (jest-dom, idb-keyval, leaflet,
  // workbox-window): a package that did would get React from Node, past the aliases, unless listed
  // in server.deps.inline.
  setupFiles: ['tests/unit/setup-preact.ts'],
};

/**
 * A unit project of `include`, whose files share one module graph and one jsdom per worker, and
 * beside it one of `alone` (files of `include` that replace a module), each file on its own.
 */
function unitProjects(
  name: string,
  base: typeof onReact | typeof onPreactPages,
  files: { include: string[]; exclude: string[]; alone: string[] },
) {
  const { plugins, resolve, ...test } = base;
  // Two files at a time, one per core.
  const shared = { ...test, maxWorkers: 2 };
  const { include, exclude, alone } = files;
  return [
    { plugins, resolve, test: { ...shared, name, include, exclude: [...exclude, ...alone], isolate: false } },
    ...(alone.length > 0 ? [{ plugins, resolve, test: { ...shared, name: `${name}-isolated`, include: alone } }] : []),
  ];
}

export default defineConfig({
  test: {
    projects: [
      ...unitProjects('unit', onReact, {
        include: UNIT_DIRS.map((dir) => `${dir}**/*.test.{ts,tsx}`),
        exclude: [...configDefaults.exclude, ...preactPageTests],
        alone: replacingModules.filter((file) => !onPreact(file)),
      }),
      ...unitProjects('unit-preact', onPreactPages, {
        include: preactPageTests,
        exclude: [...configDefaults.exclude],
        alone: replacingModules.filter(onPreact),
      }),
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
