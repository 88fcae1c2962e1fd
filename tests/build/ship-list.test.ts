import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
/** The npm scripts a production install runs (README, "In production"; docs/OPERATIONS.md). */
const RUNTIME_SCRIPTS = ['start', 'backup', 'restore'];

/** `file` and the scripts/ files it imports, followed through their own imports. */
function withImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const match of text.matchAll(/from '(\.\/[^']+\.mjs)'/g))
    withImports(path.posix.join(path.posix.dirname(file), match[1]!), seen);
  return seen;
}

it('README’s ship list names every file the production npm scripts run', () => {
  const { scripts } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const needed = new Set<string>();
  for (const name of RUNTIME_SCRIPTS) {
    const file = /node (scripts\/\S+\.mjs)/.exec(scripts[name] ?? '')?.[1];
    expect(file, name).toBeDefined();
    for (const each of withImports(file!)) needed.add(each);
  }
  expect([...needed]).toEqual(expect.arrayContaining(['scripts/start.mjs', 'scripts/data-store.mjs']));
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const production = readme.split(/^## In production$/m)[1]?.split(/^## /m)[0] ?? '';
  const shipList = /```sh\n([\s\S]*?)```/.exec(production)?.[1] ?? '';
  expect([...needed].filter((file) => !shipList.includes(file))).toEqual([]);
});
