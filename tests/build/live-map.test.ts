import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureEntry } from '../../bench/weight.js';
import { withBuild } from './built-app.js';

/** The live page opens from an SMS on any phone and network: its own weight before the map, gzip. */
const LIVE_PAGE_BUDGET_GZIP = 25_000;

describe('live page weight (production build)', () => {
  const built = withBuild();

  it('loads Leaflet only in a lazy chunk of its own, and stays small without it', () => {
    const outDir = built();
    const manifest = JSON.parse(readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Record<
      string,
      { file: string; isDynamicEntry?: boolean; dynamicImports?: string[]; css?: string[] }
    >;
    const map = manifest['src/live/leaflet-map.ts'];
    expect(map?.isDynamicEntry).toBe(true);
    expect(readFileSync(path.join(outDir, map?.file ?? ''), 'utf8')).toContain('leaflet');
    expect(map?.css?.length).toBeGreaterThan(0);

    const live = measureEntry(outDir, 'live.html');
    expect(live.files.map((f) => f.file)).not.toContain(map?.file);
    for (const file of live.files) {
      expect(readFileSync(path.join(outDir, file.file), 'utf8'), file.file).not.toMatch(/leaflet-pane|L\.Map/);
    }
    expect(live.gzip).toBeLessThan(LIVE_PAGE_BUDGET_GZIP);
    // Neither the emergency page nor the app loads the map.
    for (const entry of ['alert.html', 'index.html']) {
      expect(measureEntry(outDir, entry).files.map((f) => f.file)).not.toContain(map?.file);
    }
  });
});
