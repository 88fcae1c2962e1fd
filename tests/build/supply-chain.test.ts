import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A registry on loopback: packuments from `latest`, and the bulk advisory endpoint answering
 * `advisories` (or HTTP 405, as a registry without an advisory service does).
 */
const registry = {
  latest: {} as Record<string, string>,
  advisories: null as Record<string, unknown[]> | null,
  /** Packuments answered 503 this many more times before the real answer (a registry busy for a moment). */
  busyFor: {} as Record<string, number>,
  url: '',
};
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = decodeURIComponent(request.url ?? '/');
      if (url.startsWith('/-/npm/v1/security/')) {
        if (!registry.advisories) {
          response.writeHead(405, { 'content-type': 'application/json' }).end('{"error":"Method not allowed"}');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(registry.advisories));
        return;
      }
      const name = url.slice(1);
      const busy = registry.busyFor[name] ?? 0;
      if (busy > 0) {
        registry.busyFor[name] = busy - 1;
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Service unavailable"}');
        return;
      }
      const latest = registry.latest[name];
      if (!latest) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
        return;
      }
      const versions = Object.fromEntries(
        ['1.0.0', '2.0.0', '0.28.1', '0.29.0', latest].map((version) => [
          version,
          { name, version, dist: { tarball: `${registry.url}${name}/-/${name}-${version}.tgz` } },
        ]),
      );
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ name, 'dist-tags': { latest }, versions }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => server.close());

/** A project with these dependencies (name → installed version) and this README. */
function project(installed: Record<string, string>, readme = '# Project\n', aliases: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-supply-'));
  const dependencies = Object.fromEntries(
    Object.entries(installed).map(([name, version]) => [name, aliases[name] ?? `^${version}`]),
  );
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', dependencies }));
  const packages: Record<string, unknown> = { '': { name: 'p', version: '1.0.0', dependencies } };
  for (const [name, version] of Object.entries(installed)) {
    const real = aliases[name]?.slice(4).replace(/@[^@]*$/, '') ?? name;
    packages[`node_modules/${name}`] = {
      version,
      ...(aliases[name] ? { name: real } : {}),
      resolved: `${registry.url}${real}/-/${real}-${version}.tgz`,
      integrity: 'sha512-AAAA',
    };
  }
  writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'p', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
  );
  writeFileSync(path.join(dir, 'README.md'), readme);
  return dir;
}

/** Runs a script in `cwd` against the loopback registry (asynchronously: this process serves it). */
function run(script: string, cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ status: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts', script), '--root', cwd],
      {
        cwd,
        env: {
          ...process.env,
          ALERTA_AUDIT_SERVICE: '',
          npm_config_registry: registry.url,
          npm_config_cache: path.join(cwd, '.npm-cache'),
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function temp(...args: Parameters<typeof project>) {
  const dir = project(...args);
  dirs.push(dir);
  return dir;
}

describe('scripts/audit.mjs: an audit that can fail', () => {
  it('fails as "not checked" when the registry has no advisory service, unless that is declared', async () => {
    registry.advisories = null;
    const dir = temp({ leftpad: '1.0.0' });
    const undeclared = await run('audit.mjs', dir);
    expect(undeclared.status).toBe(1);
    expect(undeclared.output).toMatch(/audit: not checked/);

    const declared = await run('audit.mjs', dir, { ALERTA_AUDIT_SERVICE: 'absent' });
    expect(declared.status).toBe(0);
    expect(declared.output).toMatch(/declared absent \(ALERTA_AUDIT_SERVICE=absent\)/);
  });

  it('fails on a high advisory, and passes a clean report', async () => {
    registry.latest = { leftpad: '2.0.0' };
    registry.advisories = {
      leftpad: [
        {
          id: 1,
          url: 'https://github.com/advisories/GHSA-0000-0000-0000',
          title: 'Prototype pollution',
          severity: 'high',
          vulnerable_versions: '<2.0.0',
          cwe: [],
          cvss: { score: 7.5, vectorString: null },
        },
      ],
    };
    const dir = temp({ leftpad: '1.0.0' });
    const vulnerable = await run('audit.mjs', dir, { ALERTA_AUDIT_SERVICE: 'absent' });
    expect(vulnerable.output).toMatch(/1 high/);
    expect(vulnerable.output).toMatch(/high: leftpad/);
    expect(vulnerable.status).toBe(1);

    registry.advisories = {};
    const clean = await run('audit.mjs', dir);
    expect(clean.output).toMatch(/0 critical, 0 high/);
    expect(clean.status).toBe(0);
  });
});

describe('scripts/freshness.mjs: every dependency on its latest major, or held back with a reason', () => {
  const table = (rows: string) =>
    `# Project\n\n## Dependency notes\n\n### Held back\n\n| Package | Held at | Latest | Why | Upstream |\n|---|---|---|---|---|\n${rows}\n## Next\n`;

  it('passes when every dependency is on the latest major (or 0.x minor)', async () => {
    registry.latest = { leftpad: '2.3.1', kysely: '0.29.9' };
    const result = await run('freshness.mjs', temp({ leftpad: '2.0.0', kysely: '0.29.0' }));
    expect(result.output).toMatch(/every other dependency is at its latest major/);
    expect(result.status).toBe(0);
  });

  it('asks again a registry busy for a moment, and fails on one that stays busy', async () => {
    registry.latest = { leftpad: '2.3.1' };
    try {
      registry.busyFor = { leftpad: 1 };
      const passed = await run('freshness.mjs', temp({ leftpad: '2.0.0' }));
      expect(passed.output).toMatch(/every other dependency is at its latest major/);
      expect(passed.status).toBe(0);
      registry.busyFor = { leftpad: 10 };
      const failed = await run('freshness.mjs', temp({ leftpad: '2.0.0' }));
      expect(failed.output).toMatch(/leftpad: the registry answered HTTP 503/);
      expect(failed.status).toBe(1);
    } finally {
      registry.busyFor = {};
    }
  }, 60_000);

  it('fails on a dependency a major behind, or a 0.x minor behind, that README does not hold back', async () => {
    registry.latest = { leftpad: '2.3.1', kysely: '0.29.9' };
    const result = await run('freshness.mjs', temp({ leftpad: '1.0.0', kysely: '0.28.1' }));
    expect(result.output).toMatch(/leftpad: 1\.0\.0 is behind the latest 2\.3\.1/);
    expect(result.output).toMatch(/kysely: 0\.28\.1 is behind the latest 0\.29\.9/);
    expect(result.status).toBe(1);
  });

  it('passes a dependency held back by a true row with a reason and an upstream link', async () => {
    registry.latest = { leftpad: '2.3.1' };
    const readme = table('| `leftpad` | 1 | 2 | 2 needs Node 22. | https://github.com/left/pad/issues/1 |');
    const result = await run('freshness.mjs', temp({ leftpad: '1.0.0' }, readme));
    expect(result.output).toMatch(/held back, with reasons in README: leftpad 1 \(latest 2\)/);
    expect(result.status).toBe(0);
  });

  it('fails on rows that are no longer true: a newer latest, another held major, no reason, nothing behind', async () => {
    registry.latest = { leftpad: '3.0.0', rightpad: '2.0.0', middle: '5.0.0' };
    const readme = table(
      [
        '| `leftpad` | 1 | 2 | 2 needs Node 22. | https://github.com/left/pad/issues/1 |',
        '| `rightpad` | 1 | 2 | Held. | https://github.com/right/pad/issues/1 |',
        '| `middle` | 4 | 5 |  | none |',
        '| `gone` | 1 | 2 | Removed long ago. | https://github.com/gone/gone/issues/1 |',
      ].join('\n'),
    );
    const result = await run('freshness.mjs', temp({ leftpad: '1.0.0', rightpad: '2.0.0', middle: '4.1.0' }, readme));
    expect(result.output).toMatch(/leftpad: README says the latest is 2, the registry has 3\.0\.0/);
    expect(result.output).toMatch(
      /rightpad: README holds it back at 1, but 2\.0\.0 is the latest line; remove the row/,
    );
    expect(result.output).toMatch(/middle: the README row needs a reason and a link to the issue upstream/);
    expect(result.output).toMatch(/gone: README holds it back, but it is not a dependency/);
    expect(result.status).toBe(1);
  });

  it('judges an alias by the package it installs', async () => {
    registry.latest = { leftpad: '2.0.0' };
    const aliases = { 'leftpad-old': 'npm:leftpad@^1.0.0' };
    const behind = await run('freshness.mjs', temp({ 'leftpad-old': '1.0.0' }, '# Project\n', aliases));
    expect(behind.output).toMatch(/leftpad-old: 1\.0\.0 is behind the latest 2\.0\.0/);
    expect(behind.status).toBe(1);
  });
});

describe('scripts/freshness.mjs: packages of this repository', () => {
  it('asks the registry nothing about a file: dependency', async () => {
    registry.latest = { leftpad: '1.0.0' };
    const local = { 'local-tool': 'file:tools/local-tool' };
    const result = await run('freshness.mjs', temp({ leftpad: '1.0.0', 'local-tool': '0.0.0' }, '# Project\n', local));
    expect(result.output).toMatch(/1 dependencies checked/);
    expect(result.status).toBe(0);
  });
});

describe('scripts/check-lockfile.mjs: `npm install` leaves the lock as it is', () => {
  /** Runs the check on `dir`'s lock, with npm's record of the installed tree holding `installed`. */
  function check(dir: string, installed: Record<string, unknown>) {
    mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), JSON.stringify({ packages: installed }));
    return new Promise<{ status: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(root, 'scripts/check-lockfile.mjs'), path.join(dir, 'package-lock.json')],
        (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, output: `${stdout}${stderr}` }),
      );
    });
  }

  it('fails when npm found more installing than the lock says, and passes the lock it wrote', async () => {
    const dir = temp({ leftpad: '1.0.0' });
    const locked = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).packages;
    const { '': _root, ...packages } = locked;
    // npm marks a package with a binding.gyp it unpacked, which its registry metadata did not say.
    const found = {
      ...packages,
      'node_modules/leftpad': { ...packages['node_modules/leftpad'], hasInstallScript: true },
    };
    const stale = await check(dir, found);
    expect(stale.output).toMatch(/`npm install` would rewrite .*package-lock\.json: commit the lock it writes/);
    expect(stale.output).toMatch(/node_modules\/leftpad: hasInstallScript absent in the lock, true installed/);
    expect(stale.status).toBe(1);

    writeFileSync(
      path.join(dir, 'package-lock.json'),
      JSON.stringify({ lockfileVersion: 3, requires: true, packages: { '': locked[''], ...found } }),
    );
    const written = await check(dir, found);
    expect(written.output).toMatch(/`npm install` leaves .*package-lock\.json as it is/);
    expect(written.status).toBe(0);
  });
});
