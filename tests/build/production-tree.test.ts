import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

interface Tree {
  dependencies?: Record<string, Tree>;
}

/** Every package name in an `npm ls --json` tree. */
function names(tree: Tree, found = new Set<string>()): Set<string> {
  for (const [name, child] of Object.entries(tree.dependencies ?? {})) {
    found.add(name);
    names(child, found);
  }
  return found;
}

// What `npm prune --omit=dev` keeps of this checkout (the image's runtime stage) and
// `npm ci --omit=dev` installs, read by npm from package.json and the lock.
it('keeps the typed client’s generator, Redocly and TypeScript 5 out of a production install', () => {
  const [command = 'npm', ...args] = npm;
  const listed = spawnSync(command, [...args, 'ls', '--package-lock-only', '--omit=dev', '--all', '--json'], {
    cwd: root,
    encoding: 'utf8',
  });
  const production = names(JSON.parse(listed.stdout) as Tree);
  expect(production.has('fastify')).toBe(true);
  for (const tool of ['@alerta/openapi-typescript', 'openapi-typescript', '@redocly/openapi-core'])
    expect(production.has(tool), tool).toBe(false);
});
