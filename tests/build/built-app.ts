import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the web app as `npm run build` does into a new temporary directory and returns it
 * (with Vite's manifest, `.vite/manifest.json`, when `manifest` is set).
 * Vitest sets NODE_ENV=test, which would keep Workbox's development logging in the worker.
 */
export async function buildApp(options: { manifest?: boolean } = {}): Promise<string> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-build-'));
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root,
      configFile: path.join(root, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true, manifest: options.manifest ?? false },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}

/**
 * Builds the web app once for the calling file's tests, with Vite's manifest (as the bench reads
 * it, bench/weight.ts), and removes the build after them; returns where it is.
 */
export function withBuild(): () => string {
  let outDir = '';
  beforeAll(async () => {
    outDir = await buildApp({ manifest: true });
  }, 180_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));
  return () => outDir;
}

/** The URLs the built service worker in `outDir` precaches, read from the manifest injected into sw.js. */
export function precacheList(outDir: string): string[] {
  const sw = readFileSync(path.join(outDir, 'sw.js'), 'utf8');
  return [...sw.matchAll(/"?url"?:\s*"([^"]+)"/g)].map((m) => m[1] as string);
}
