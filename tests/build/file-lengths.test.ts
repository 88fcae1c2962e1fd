import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '../../server/lib/root.js';

// A smell check, not a rule to split by: modules are split where their concept splits, and a
// product file (the server, the app and its pages, the service worker, the shared contract)
// past 400 lines has almost always grown a second concept.
const LIMIT = 400;
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
