import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '../../server/lib/root.js';

// A file that does one job stays short enough to read whole: none of the product's own code
// (the server, the app and its pages, the service worker, the shared contract) is over 250 lines.
const LIMIT = 250;
const PRODUCT = ['server', 'src', 'sw', 'common'];

function sources(dir: string): string[] {
  return readdirSync(path.join(projectRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

it(`keeps every product source file at ${LIMIT} lines or fewer`, () => {
  const files = PRODUCT.flatMap(sources);
  expect(files.length).toBeGreaterThan(100);
  const long = files
    .map((file) => ({ file, lines: readFileSync(path.join(projectRoot, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > LIMIT)
    .map(({ file, lines }) => `${file}: ${lines}`);
  expect(long).toEqual([]);
});
