import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync, Visitor } from 'vite';
import { describe, expect, it } from 'vitest';
import * as routes from '../../common/api/routes';

// The app, the pages and the service worker build every API path from common/api/routes.ts
// (pathOf, ALERT_POST_PATH): a path written out again by hand is found here, with its place.

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'sw'];

/** The first segment of every route under /api/ (`users`, `emergency`, `live`, …). */
const AREAS = new Set(
  Object.values(routes)
    .filter((value) => typeof value === 'object' && !(value instanceof RegExp))
    .flatMap((area) => Object.values(area as Record<string, { url: string }>))
    .map(({ url }) => url.split('/')[2]),
);

/** Whether a string literal or a piece of template text is (part of) an API path. */
function isApiPath(text: string): boolean {
  const first = text.replace(/^\/?api\//, '').split('/')[0] ?? '';
  return text.includes('/api/') || text.startsWith('api/') || (text.includes('/') && AREAS.has(first));
}

/** Whether a regular expression spells out an API path (`\/api\/emergency…`); the bare `/api/` prefix is not one. */
const isApiPattern = (pattern: string) => /api\\?\/\w/.test(pattern);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `file:line: text` of each API path literal in a source file (import specifiers are module paths, not API paths). */
function pathLiterals(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const { program, errors } = parseSync(file, source, { lang: file.endsWith('x') ? 'tsx' : 'ts' });
  if (errors.length) throw new Error(`${file}: ${errors[0]?.message}`);
  const modulePaths = new Set<number>();
  const found: string[] = [];
  const report = (start: number, text: string) => {
    const line = source.slice(0, start).split('\n').length;
    found.push(`${path.relative(ROOT, file)}:${line}: ${text}`);
  };
  const skipSource = (node: { source?: { start: number } | null }) => {
    if (node.source) modulePaths.add(node.source.start);
  };
  new Visitor({
    ImportDeclaration: skipSource,
    ExportNamedDeclaration: skipSource,
    ExportAllDeclaration: skipSource,
    ImportExpression: skipSource,
    Literal(node) {
      if (modulePaths.has(node.start)) return;
      if (typeof node.value === 'string' && isApiPath(node.value)) report(node.start, node.value);
      if ('regex' in node && node.regex && isApiPattern(node.regex.pattern))
        report(node.start, `/${node.regex.pattern}/`);
    },
    TemplateElement(node) {
      if (isApiPath(node.value.raw)) report(node.start, node.value.raw);
    },
  }).visit(program);
  return found;
}

describe('API paths in the app, the pages and the service worker', () => {
  it('the check knows the contract’s areas and what a path literal looks like', () => {
    expect([...AREAS].sort()).toEqual([
      'billing',
      'config',
      'emergency',
      'health',
      'live',
      'ready',
      'sms',
      'users',
      'voice',
    ]);
    for (const text of ['/api/users/me/', 'users/auth/login/', '/api/', 'emergency/contacts/', 'x/api/y']) {
      expect(isApiPath(text), text).toBe(true);
    }
    for (const text of ['/login', './live/api', 'live', 'users', '/a/', 'alert.html', 'users.me']) {
      expect(isApiPath(text), text).toBe(false);
    }
    expect(isApiPattern('^\\/api\\/emergency\\/public\\/[^/]+\\/alerts\\/$')).toBe(true);
    expect(isApiPattern('^\\/api\\/')).toBe(false);
  });

  it('are all built from common/api/routes.ts: no path or path pattern written out by hand', () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(pathLiterals)).toEqual([]);
  });
});
