import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, precacheList } from './built-app.js';

let outDir: string;
let precached: string[];

/** The scripts and stylesheets an HTML entry loads. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1] as string);
}

describe('service worker precache (production build)', () => {
  beforeAll(async () => {
    outDir = await buildApp();
    precached = precacheList(outDir);
  }, 180_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('holds both entries and everything they load', () => {
    expect(precached).toEqual(expect.arrayContaining(['index.html', 'alert.html']));
    for (const entry of ['index.html', 'alert.html']) {
      const assets = assetsOf(readFileSync(path.join(outDir, entry), 'utf8'));
      expect(assets.length).toBeGreaterThan(0);
      expect(precached).toEqual(expect.arrayContaining(assets));
    }
    expect(precached).toEqual(
      expect.arrayContaining(['manifest.webmanifest', 'icons/icon-192.png', 'icons/apple-touch-icon.png']),
    );
  });

  it('holds every built asset once, and no source maps, API routes or the worker itself', () => {
    // Precompressed copies (.gz, .br) are for the server to send, not for the cache to hold.
    const built = readdirSync(path.join(outDir, 'assets'))
      .filter((f) => !/\.(gz|br)$/.test(f))
      .map((f) => `assets/${f}`);
    expect(built.filter((f) => !precached.includes(f))).toEqual([]);
    expect(new Set(precached).size).toBe(precached.length);
    expect(precached.filter((url) => /\.(map|gz|br)$/.test(url))).toEqual([]);
    expect(precached.filter((url) => /^\/?(api|dev)\//.test(url))).toEqual([]);
    expect(precached).not.toContain('sw.js');
    expect(readFileSync(path.join(outDir, 'sw.js'), 'utf8')).not.toContain('sourceMappingURL');
  });
});
