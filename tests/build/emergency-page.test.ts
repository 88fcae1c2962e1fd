import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGETS } from '../../bench/run.js';
import { entryFiles, measureEntry, readManifest } from '../../bench/weight.js';
import { precacheList, withBuild } from './built-app.js';

describe('the emergency page in the production build', () => {
  const built = withBuild();
  const read = (file: string) => readFileSync(path.join(built(), file), 'utf8');
  /** Every JS and CSS file the page may load: before its countdown, and the parts it loads after. */
  const everything = () => entryFiles(readManifest(built()), 'alert.html', { lazy: true });

  it('starts from one script of its own and loads only its own chunks: nothing it runs is fetched with another page', () => {
    const html = read('alert.html');
    const scripts = [...html.matchAll(/<script type="module"[^>]* src="\/([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(html).not.toContain('modulepreload');

    const page = measureEntry(built(), 'alert.html');
    expect(page.files.filter((f) => f.file.endsWith('.js')).map((f) => f.file)).toEqual(scripts);
    // Its stylesheet is written into the HTML; what it loads after its countdown is its own.
    const own = everything().filter((file) => file.endsWith('.js') || !page.files.some((f) => f.file === file));
    expect(own.length).toBeGreaterThan(scripts.length);
    for (const entry of ['index.html', 'live.html']) {
      const theirs = entryFiles(readManifest(built()), entry, { lazy: true });
      expect(own.filter((file) => theirs.includes(file))).toEqual([]);
    }
  });

  it('fetches at most its budget of JS and CSS before its countdown shows; the rest loads after, and is precached', () => {
    const first = measureEntry(built(), 'alert.html');
    expect(first.gzip).toBeLessThanOrEqual(BUDGETS.emergencyGzipBytes);
    const manifest = readManifest(built());
    const later = everything().filter((file) => !first.files.some((f) => f.file === file));
    // The parts drawn after the countdown (with their styles) and the test page.
    expect(manifest['src/alert/later.tsx?emergency']?.file).toMatch(/^assets\/later-.+\.js$/);
    expect(manifest['src/alert/TestPage.tsx?emergency']?.file).toMatch(/^assets\/TestPage-.+\.js$/);
    expect(later).toEqual(
      expect.arrayContaining([
        manifest['src/alert/later.tsx?emergency']?.file,
        manifest['src/alert/TestPage.tsx?emergency']?.file,
      ]),
    );
    expect(later.some((file) => file.endsWith('.css'))).toBe(true);
    for (const file of later) expect(existsSync(path.join(built(), file)), file).toBe(true);
    // Offline the worker answers for every one of them, as for the page itself.
    expect(later.filter((file) => !precacheList(built()).includes(file))).toEqual([]);
  });

  it('runs on Preact: React DOM, which the app loads, is in none of its scripts', () => {
    const [app] = measureEntry(built(), 'index.html').files.filter((f) => /assets\/main-/.test(f.file));
    expect(read(app?.file ?? '')).toContain('react.dev/errors');
    const scripts = everything().filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const script of scripts) expect(read(script), script).not.toContain('react.dev/errors');
  });
});
