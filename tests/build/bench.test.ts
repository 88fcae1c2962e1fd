import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FLOOR_SETTINGS,
  openFloorPostgres,
  openFloorSqlite,
  postgresWriter,
  sqliteWriter,
} from '../../bench/fixed-floor.js';
import { type BenchResults, runBench } from '../../bench/run.js';
import { renderTable } from '../../bench/table.js';
import { entryFiles } from '../../bench/weight.js';
import { openDatabase } from '../../server/db/index.js';
import { dbKind, dbLabel } from '../server/helper.js';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stock drivers the fixed floor may use, besides Node's own modules. */
const STOCK = ['better-sqlite3', 'better-sqlite3-node20', 'pg'];
const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/**
 * What of the product a module's source names: any module it imports, requires or loads other
 * than Node's own and the stock drivers, and any relative path or product dependency written
 * anywhere in it as a string (a module loaded by a name computed from strings).
 */
function productImports(source: string): string[] {
  const imported = [
    ...source.matchAll(/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...source.matchAll(/\bimport(?:\s+|\s*\(\s*)['"]([^'"]+)['"]/g),
    ...source.matchAll(/\brequire(?:\.resolve)?\s*\(\s*['"]([^'"]+)['"]/g),
  ].map((m) => m[1] as string);
  const strings = [...source.matchAll(/(['"`])((?:(?!\1)[^\\\n]|\\.)*)\1/g)].map((m) => m[2] as string);
  const packageOf = (name: string) =>
    name
      .split('/')
      .slice(0, name.startsWith('@') ? 2 : 1)
      .join('/');
  return [
    ...imported.filter((name) => !name.startsWith('node:') && !STOCK.includes(packageOf(name))),
    ...strings.filter(
      (text) => /^\.{1,2}\//.test(text) || (packageOf(text) in dependencies && !STOCK.includes(packageOf(text))),
    ),
  ];
}

describe('bench: the fixed floor', () => {
  it('imports nothing of the product: Node, better-sqlite3 and pg only', () => {
    expect(productImports(readFileSync(path.join(root, 'bench/fixed-floor.ts'), 'utf8'))).toEqual([]);
  });

  it('would see a module of the product however it is named', () => {
    const samples = [
      "import { loadConfig } from '../server/config.js';",
      "import type { Db } from '../server/db/schema.js';",
      "export { benchAlert } from './fixtures.js';",
      "const { insertAlert } = await import('../server/features/alerts/repository.js');",
      "const kysely = require('kysely');",
      "const driver = require(fast ? 'kysely' : 'pg');",
      "import './setup.js';",
    ];
    for (const sample of samples) expect(productImports(sample), sample).not.toEqual([]);
    expect(productImports("import pg from 'pg';\nimport { fork } from 'node:child_process';")).toEqual([]);
  });

  it('opens SQLite with the pragmas the server sets on its connection', async () => {
    const floor = openFloorSqlite(path.join(dir, 'floor.sqlite'));
    const product = openDatabase({ dataDir: dir, sqliteFile: 'product.sqlite' });
    try {
      const names = Object.keys(FLOOR_SETTINGS.sqlitePragmas);
      const server = Object.fromEntries(
        await Promise.all(
          names.map(async (name) => {
            const [row] = (await sql.raw(`pragma ${name}`).execute(product.db)).rows as Record<string, unknown>[];
            return [name, Object.values(row ?? {})[0]];
          }),
        ),
      );
      const own = Object.fromEntries(names.map((name) => [name, floor.db.pragma(name, { simple: true })]));
      expect(own).toEqual(server);
      expect(own).toEqual(FLOOR_SETTINGS.sqlitePragmas);
    } finally {
      await floor.close();
      await product.close();
    }
  });

  it('writes one alert and a row per contact in each transaction, each row naming an alert that exists', async () => {
    const floor = openFloorSqlite(path.join(dir, 'rows.sqlite'));
    try {
      const write = sqliteWriter(floor.db, 3);
      write();
      write();
      const count = (table: string) => floor.db.prepare(`select count(*) from ${table}`).pluck().get();
      expect([count('floor_alerts'), count('floor_deliveries')]).toEqual([2, 6]);
      const orphan = floor.db.prepare("insert into floor_deliveries values ('d', 'no-alert', '+1', 'x', 'sent', 0)");
      expect(() => orphan.run()).toThrow(/FOREIGN KEY/);
    } finally {
      await floor.close();
    }
  });

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))('writes the same on PostgreSQL, in one statement', async () => {
    const floor = await openFloorPostgres(process.env.TEST_DATABASE_URL ?? '');
    try {
      const write = postgresWriter(floor.pool, 3);
      await Promise.all([write(), write()]);
      const count = async (table: string) =>
        (await floor.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n;
      expect([await count('floor_alerts'), await count('floor_deliveries')]).toEqual([2, 6]);
      await expect(
        floor.pool.query("insert into floor_deliveries values ('d', 'no-alert', '+1', 'x', 'sent', 0)"),
      ).rejects.toThrow(/foreign key/);
    } finally {
      await floor.close();
    }
  });
});

describe('bench: the import graph behind an entry', () => {
  it('follows static imports and CSS, leaves lazy chunks out', () => {
    const manifest = {
      'alert.html': { file: 'assets/alert.js', isEntry: true, imports: ['_shared.js'], css: ['assets/alert.css'] },
      '_shared.js': { file: 'assets/shared.js', imports: ['_deep.js'] },
      '_deep.js': { file: 'assets/deep.js', css: ['assets/deep.css'] },
      'index.html': { file: 'assets/main.js', isEntry: true, imports: ['_shared.js'], dynamicImports: ['lazy.tsx'] },
      'lazy.tsx': { file: 'assets/lazy.js', imports: ['index.html'] },
    };
    expect(entryFiles(manifest, 'alert.html').sort()).toEqual([
      'assets/alert.css',
      'assets/alert.js',
      'assets/deep.css',
      'assets/deep.js',
      'assets/shared.js',
    ]);
    expect(entryFiles(manifest, 'index.html')).not.toContain('assets/lazy.js');
  });
});

describe(`bench: a tiny run of every part (${dbLabel})`, () => {
  it('measures all six parts, writes them and prints the table', { timeout: 300_000 }, async () => {
    const out = path.join(dir, 'results.json');
    const fanOut = { alerts: 4, contacts: 5, delayMs: 20 };
    const results = await runBench({
      pageRuns: { cold: 1, warm: 1 },
      alerts: 2,
      durationS: 1,
      connections: 2,
      fanOut,
      // The emergency page, the one a person in trouble opens, scored once.
      lighthouse: { pages: ['emergency'], runs: 1 },
      ...(dbKind === 'postgres' ? { pgUrl: process.env.TEST_DATABASE_URL } : {}),
      out,
      log: () => {},
    });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(JSON.parse(JSON.stringify(results)));

    for (const entry of [results.weight.emergency, results.weight.app]) {
      expect(entry.files.some((f) => f.file.endsWith('.js'))).toBe(true);
      expect(entry.files.some((f) => f.file.endsWith('.css'))).toBe(true);
      expect(entry.gzip).toBeGreaterThan(1000);
      expect(entry.gzip).toBeLessThan(entry.bytes);
    }
    const { warmOfflineMs, warmOfflineSameTabMs, coldSlow4gMs, warmOfflineFloorMs, coldSlow4gFloorMs } =
      results.pageLoad;
    const times = [warmOfflineMs, warmOfflineSameTabMs, coldSlow4gMs, warmOfflineFloorMs, coldSlow4gFloorMs];
    for (const summary of [...times, results.press.wholePathMs, results.press.serverPartMs]) {
      expect(summary.min).toBeGreaterThan(0);
      expect(summary.max).toBeGreaterThanOrEqual(summary.median);
    }
    expect(results.pageLoad.warmOfflineMs.n).toBe(1);
    expect(results.press.wholePathMs.n).toBe(2);
    // The clocks were read against each other over loopback: a round trip of milliseconds, not seconds.
    expect(results.press.clockOffset.roundTripMs).toBeGreaterThan(0);
    expect(results.press.clockOffset.roundTripMs).toBeLessThan(1000);
    expect(Number.isFinite(results.press.clockOffset.offsetMs)).toBe(true);
    // Slow 4G alone is 150 ms per request: a cold load (its countdown comes with the page's own
    // HTML, common/emergency-shell.ts) cannot beat one of them, nor its floor (one request).
    expect(results.pageLoad.coldSlow4gMs.min).toBeGreaterThan(150);
    expect(coldSlow4gFloorMs.min).toBeGreaterThan(150);
    // The server sends the build's precompressed copies: fewer bytes than the emergency page's raw files.
    expect(results.pageLoad.coldTransferBytes.median).toBeGreaterThan(1000);
    expect(results.pageLoad.coldTransferBytes.median).toBeLessThan(results.weight.emergency.bytes);

    expect(results.throughput.map((t) => t.db)).toEqual(dbKind === 'postgres' ? ['SQLite', 'PostgreSQL'] : ['SQLite']);
    for (const db of results.throughput) {
      expect(db.routes).toHaveLength(3);
      for (const route of db.routes) {
        expect(route.failures).toBe(0);
        expect(route.mean).toBeGreaterThan(0);
      }
      expect(db.routes[0]?.ratio).toBe(1);
      expect(db.fixedFloorRuns).toHaveLength(2);
      for (const run of db.fixedFloorRuns) expect(run).toBeGreaterThan(0);
      expect(db.fixedFloorPerSecond).toBe(Math.round(((db.fixedFloorRuns[0] ?? 0) + (db.fixedFloorRuns[1] ?? 0)) / 2));
      expect(db.directPerSecond).toBeGreaterThan(0);
      // Each share is the POST's mean over its floor, to two places: a busy machine may make it 0.00.
      const post = db.routes[2]?.mean ?? 0;
      expect(db.postOfFixedFloor).toBeCloseTo(post / db.fixedFloorPerSecond, 1);
      expect(db.postOfDirect).toBeCloseTo(post / db.directPerSecond, 1);
    }
    for (const run of results.fanOut) {
      expect(run.sent).toBe(fanOut.alerts * fanOut.contacts);
      expect(run.maxInFlight).toBeGreaterThan(1);
      expect(run.maxInFlight).toBeLessThanOrEqual(10);
      // 20 messages of 20 ms each cannot finish faster than 20 ms / concurrency apiece.
      expect(run.seconds).toBeGreaterThanOrEqual((fanOut.alerts * fanOut.contacts * 0.02) / run.maxInFlight);
    }

    expect(results.lighthouse.map((p) => [p.page, p.path, p.runs])).toEqual([['emergency', '/public/{token}/', 1]]);
    const scores = results.lighthouse[0]?.scores ?? {};
    expect(Object.keys(scores).sort()).toEqual(['accessibility', 'best-practices', 'performance', 'seo']);
    for (const score of Object.values(scores)) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(100);
    }

    const { table } = renderTable(results as BenchResults);
    for (const part of [
      '| 1. Emergency',
      '| 1. App',
      '| 2a.',
      '| 2a. Its floor',
      '| 2b.',
      '| 2b. Its floor',
      ': the fixed minimal transaction, one alert and a row per contact (floor) |',
      ": the same alert by the product's transaction, run directly |",
      ': the alert POST against its fixed floor |',
      ': the alert POST against the direct transactions |',
      '| 3. Press',
      '| 3. Request',
      '| 4. ',
      '| 5. ',
      '| 6. Lighthouse, mobile: /public/{token}/ (median of 1) | performance ',
    ]) {
      expect(table).toContain(part);
    }
  });
});
