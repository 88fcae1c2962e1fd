import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, it } from 'vitest';

// The layers of docs/ARCHITECTURE.md, read from the imports of server/features: only routes
// and the feature plugins know Fastify's app, requests and replies (services are handed their
// dependencies, server/lib/deps.ts), a repository never reaches up into the rules above it, only
// repositories build and run statements, and a feature uses another only through the front door
// its index.ts opens.

const ROOT = path.resolve(import.meta.dirname, '../..');
const FEATURES = path.join(ROOT, 'server/features');
const HTTP_TYPES = ['FastifyInstance', 'FastifyRequest', 'FastifyReply'];

const relative = (file: string) => path.relative(FEATURES, file).split(path.sep).join('/');

/** A feature's repository: `repository.ts`, or `<what>-repository.ts` beside it. */
const isRepository = (file: string) => /(^|-)repository\.[jt]s$/.test(path.basename(file));

/** The HTTP layer: route files, and each feature's plugin (its index.ts registers routes and decorators). */
const isHttpLayer = (file: string) => file.endsWith('routes.ts') || path.basename(file) === 'index.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

interface Import {
  from: string;
  /** The names taken from the module; `*` for a namespace import. */
  names: string[];
  line: number;
}

/** Every import and re-export of a module, and each `import('…').Name` type reference. */
function importsOf(file: string): Import[] {
  const source = readFileSync(file, 'utf8');
  const { program, errors } = parseSync(file, source, { lang: 'ts' });
  if (errors.length) throw new Error(`${file}: ${errors[0]?.message}`);
  const lineOf = (start: number) => source.slice(0, start).split('\n').length;
  const found: Import[] = [];
  for (const node of program.body) {
    if (
      (node.type === 'ImportDeclaration' ||
        node.type === 'ExportNamedDeclaration' ||
        node.type === 'ExportAllDeclaration') &&
      node.source
    ) {
      const specifiers = 'specifiers' in node ? (node.specifiers ?? []) : [];
      const names =
        node.type === 'ExportAllDeclaration'
          ? ['*']
          : specifiers.map((s) =>
              s.type === 'ImportNamespaceSpecifier'
                ? '*'
                : s.type === 'ImportSpecifier'
                  ? nameOf(s.imported)
                  : s.type === 'ExportSpecifier'
                    ? nameOf(s.local)
                    : 'default',
            );
      found.push({ from: String(node.source.value), names, line: lineOf(node.start) });
    }
  }
  for (const match of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*(\w+)/g)) {
    found.push({ from: match[1] ?? '', names: [match[2] ?? ''], line: lineOf(match.index) });
  }
  return found;
}

/** Kysely's builders of a statement; a statement runs with one of EXECUTE. */
const BUILDERS = new Set([
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
]);
const EXECUTE = new Set(['execute', 'executeTakeFirst', 'executeTakeFirstOrThrow']);

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** The property a call's callee names (`db.selectFrom(…)` → `selectFrom`), if it is a member call. */
function calledMember(node: Node): { object: Node; name: string } | undefined {
  const callee = node.callee as Node | undefined;
  if (node.type !== 'CallExpression' || callee?.type !== 'MemberExpression' || callee.computed) return undefined;
  return { object: callee.object as Node, name: String((callee.property as { name?: unknown }).name) };
}

/** `…transaction().execute(…)`: a service opening a transaction, not a statement. */
const opensTransaction = (object: Node) => calledMember(object)?.name === 'transaction';

/** `file:line: what` of each statement the module builds or runs: a builder, the `sql` tag, an execute. */
function statementsIn(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const { program } = parseSync(file, source, { lang: 'ts' });
  const lineOf = (start: number) => source.slice(0, start).split('\n').length;
  const found: string[] = [];
  const visit = (node: Node) => {
    const member = calledMember(node);
    if (member && (BUILDERS.has(member.name) || (EXECUTE.has(member.name) && !opensTransaction(member.object)))) {
      found.push(`${relative(file)}:${lineOf(node.start)}: ${member.name}`);
    }
    if (node.type === 'TaggedTemplateExpression' && (node.tag as { name?: unknown }).name === 'sql') {
      found.push(`${relative(file)}:${lineOf(node.start)}: sql\`…\``);
    }
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(program as unknown as Node);
  return found;
}

const nameOf = (node: { type: string; name?: string; value?: unknown }) =>
  node.type === 'Identifier' ? (node.name ?? '') : String(node.value);

/** `file:line: names` of each import of Fastify's app, request or reply types. */
function httpImports(file: string): string[] {
  return importsOf(file)
    .filter((i) => i.from === 'fastify')
    .map((i) => ({ ...i, names: i.names.filter((name) => name === '*' || HTTP_TYPES.includes(name)) }))
    .filter((i) => i.names.length > 0)
    .map((i) => `${relative(file)}:${i.line}: ${i.names.join(', ')}`);
}

/** The feature a path under server/features belongs to ('' for one outside it). */
const featureOf = (target: string) =>
  target.startsWith(FEATURES + path.sep) ? (relative(target).split('/')[0] ?? '') : '';

/** `file:line: from` of each import that reaches into another feature past its index.ts. */
function backDoorImports(file: string): string[] {
  const own = featureOf(file);
  return importsOf(file)
    .filter((i) => i.from.startsWith('.'))
    .map((i) => ({ ...i, target: path.resolve(path.dirname(file), i.from) }))
    .filter((i) => {
      const feature = featureOf(i.target);
      return feature !== '' && feature !== own && i.target !== path.join(FEATURES, feature, 'index.js');
    })
    .map((i) => `${relative(file)}:${i.line}: ${i.from}`);
}

const files = sourceFiles(FEATURES);

describe('server layers', () => {
  it('reads the features it checks', () => {
    expect(files.filter(isHttpLayer).length).toBeGreaterThan(10);
    expect(files.filter((file) => !isHttpLayer(file)).length).toBeGreaterThan(30);
    // The check sees a route's own import of the app type.
    expect(httpImports(path.join(FEATURES, 'contacts/routes.ts'))).not.toEqual([]);
    // It sees a repository's statements, and not a service's transaction.
    expect(statementsIn(path.join(FEATURES, 'contacts/repository.ts')).length).toBeGreaterThan(5);
    expect(statementsIn(path.join(FEATURES, 'accounts/sessions.ts'))).toEqual([]);
  });

  it('builds and runs statements only in repositories', () => {
    expect(files.filter((file) => !isRepository(file)).flatMap(statementsIn)).toEqual([]);
  });

  it('lets a feature use another only through its index.ts', () => {
    expect(files.flatMap(backDoorImports)).toEqual([]);
  });

  it('keeps Fastify app, request and reply types in routes and feature plugins', () => {
    const outside = files.filter((file) => !isHttpLayer(file));
    expect(outside.flatMap(httpImports)).toEqual([]);
  });

  it('keeps repositories to queries: from the features they import only other repositories', () => {
    const repositories = files.filter(isRepository);
    expect(repositories.length).toBeGreaterThanOrEqual(5);
    const upward = repositories.flatMap((file) =>
      importsOf(file)
        .filter((i) => i.from.startsWith('.'))
        .map((i) => ({ ...i, target: path.resolve(path.dirname(file), i.from) }))
        .filter((i) => i.target.startsWith(FEATURES + path.sep) && !isRepository(i.target))
        .map((i) => `${relative(file)}:${i.line}: ${i.from}`),
    );
    expect(upward).toEqual([]);
  });
});
