import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchResults, runBench } from '../../bench/run.js';
import { renderTable } from '../../bench/table.js';
import { entryFiles } from '../../bench/weight.js';
import { dbKind, dbLabel } from '../server/helper.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
      expect(db.directPerSecond).toBeGreaterThan(0);
      expect(db.postOfDirect).toBeGreaterThan(0);
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
      ': the same alert by direct transactions (floor) |',
      ': the alert POST against its floor |',
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
