import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureEntry } from '../../bench/weight.js';
import { withBuild } from './built-app.js';

describe('the emergency page in the production build', () => {
  const built = withBuild();
  const read = (file: string) => readFileSync(path.join(built(), file), 'utf8');

  it('loads one script of its own: nothing it runs is fetched with another page', () => {
    const html = read('alert.html');
    const scripts = [...html.matchAll(/<script type="module"[^>]* src="\/([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toHaveLength(1);
    expect(html).not.toContain('modulepreload');

    const page = measureEntry(built(), 'alert.html');
    expect(page.files.filter((f) => f.file.endsWith('.js')).map((f) => f.file)).toEqual(scripts);
    for (const entry of ['index.html', 'live.html']) {
      expect(measureEntry(built(), entry).files.map((f) => f.file)).not.toContain(scripts[0]);
    }
  });

  it('runs on Preact: React DOM, which the app loads, is not in its script', () => {
    const [app] = measureEntry(built(), 'index.html').files.filter((f) => /assets\/main-/.test(f.file));
    expect(read(app?.file ?? '')).toContain('react.dev/errors');
    const [script] = measureEntry(built(), 'alert.html').files.filter((f) => f.file.endsWith('.js'));
    expect(read(script?.file ?? '')).not.toContain('react.dev/errors');
  });
});
