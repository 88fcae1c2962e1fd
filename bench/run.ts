// `npm run bench`: measures what an alert costs (page weight, time to the countdown, press to
// provider, throughput, fan-out), writes bench/results.json and prints the Markdown table.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startTileServer } from '../tests/e2e/tile-server.js';
import { measurePageLoad, measurePressToProvider } from './browser.js';
import { measureFanOut } from './fanout.js';
import { LIGHTHOUSE_PAGES, type LighthousePage, measureLighthouse } from './lighthouse.js';
import { startBenchServer } from './server-client.js';
import { renderTable } from './table.js';
import { measureThroughput } from './throughput.js';
import { buildInto, measureEntry } from './weight.js';

export interface BenchOptions {
  /** Page loads per case (part 2): cold, and warm (each with its floor). */
  pageRuns: { cold: number; warm: number };
  /** Alerts pressed one after another (part 3). */
  alerts: number;
  /** autocannon seconds per route, and connections (part 4). */
  durationS: number;
  connections: number;
  fanOut: { alerts: number; contacts: number; delayMs: number };
  /** Pages Lighthouse scores, and runs per page (part 6). */
  lighthouse: { pages: readonly LighthousePage[]; runs: number };
  /** PostgreSQL server for parts 4 and 5 (each run in a fresh schema, dropped after); unset: SQLite only. */
  pgUrl?: string;
  out: string;
  log: (line: string) => void;
}

export const FULL: Omit<BenchOptions, 'out' | 'log' | 'pgUrl'> = {
  // Twenty of each: the medians of ten moved by a third between runs minutes apart (a new tab
  // takes 40 to 150 ms to start its renderer here), and a ratio of two medians twice as much.
  // Forty warm: a warm open of 40 to 150 ms is as long as that spread, and its median over its
  // floor's moved by 0.15 between runs of twenty; a warm run takes half a second.
  pageRuns: { cold: 20, warm: 40 },
  alerts: 50,
  durationS: 5,
  connections: 10,
  fanOut: { alerts: 1000, contacts: 5, delayMs: 50 },
  lighthouse: { pages: LIGHTHOUSE_PAGES, runs: 3 },
};

/** The budgets the results are held to (issue "Benchmarks and budgets"). */
export const BUDGETS = {
  /** What the emergency page fetches before its countdown shows: what follows loads after it. */
  emergencyGzipBytes: 20_000,
  appGzipBytes: 180_000,
  warmOfflineMedianMs: 300,
  coldSlow4gMedianMs: 2_500,
  /** Press on the page → SMS port, median (ms). */
  wholePathP50Ms: 8,
  serverPartP95Ms: 20,
  /** Each figure's median over its floor's, measured in the same run. */
  warmOfflineOverFloor: 1.5,
  coldSlow4gOverFloor: 1.3,
  /**
   * The alert POST per process on SQLite, and as a share, on each database, of its fixed floor
   * (one alert row and a row per contact by the stock driver, bench/fixed-floor.ts), which nothing
   * the product's transaction grows to can lower; and of the product's own transaction run
   * directly (bench/direct.ts), which grows with it.
   */
  alertPostPerSecondSqlite: 1_000,
  alertPostOfFixedFloor: { SQLite: 0.2, PostgreSQL: 0.15 },
  alertPostOfDirect: { SQLite: 0.35, PostgreSQL: 0.3 },
  /** Lighthouse (mobile), every page scored: performance at least, the others exactly. */
  lighthousePerformance: 95,
  lighthouseAccessibility: 100,
  lighthouseBestPractices: 100,
  /** SEO on the pages meant to be found (bench/lighthouse.ts INDEXED_PAGES). */
  lighthouseSeo: 100,
};

async function postgresReachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.end();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const machine = () => ({
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memoryGb: Math.round(os.totalmem() / 1e9),
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
  loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100),
});

/** Runs all six parts and writes the results file; returns the results. */
export async function runBench(options: BenchOptions) {
  const { log } = options;
  const started = Date.now();
  const before = machine();
  const dist = mkdtempSync(path.join(os.tmpdir(), 'alerta-bench-dist-'));
  try {
    log('1/6 weight: building the web app into a temporary directory');
    await buildInto(dist);
    const weight = { emergency: measureEntry(dist, 'alert.html'), app: measureEntry(dist, 'index.html') };

    log('2/6 emergency page: navigation to countdown, warm offline and cold slow 4G');
    const server = await startBenchServer({ distDir: dist });
    let pageLoad: Awaited<ReturnType<typeof measurePageLoad>>;
    let press: Awaited<ReturnType<typeof measurePressToProvider>>;
    try {
      pageLoad = await measurePageLoad(server, options.pageRuns, dist);
      log(`3/6 press to provider: ${options.alerts} alerts`);
      press = await measurePressToProvider(server, options.alerts);
    } finally {
      await server.stop();
    }

    const pgUrl = options.pgUrl;
    const pgProblem = pgUrl ? await postgresReachable(pgUrl) : 'no PostgreSQL URL given';
    const withPg = pgUrl !== undefined && pgProblem === null;
    log(`4/6 throughput: SQLite${withPg ? ' and PostgreSQL' : ` (PostgreSQL unreachable: ${pgProblem})`}`);
    const load = { durationS: options.durationS, connections: options.connections };
    const throughput = [await measureThroughput('SQLite', load)];
    if (withPg) throughput.push(await measureThroughput('PostgreSQL', { ...load, pgUrl }));

    log(`5/6 fan-out: ${options.fanOut.alerts} alerts × ${options.fanOut.contacts} contacts`);
    const fanOut = [await measureFanOut(options.fanOut)];
    if (withPg) fanOut.push(await measureFanOut({ ...options.fanOut, pgUrl }));

    log(`6/6 Lighthouse, mobile: ${options.lighthouse.pages.join(', ')} × ${options.lighthouse.runs}`);
    const tiles = await startTileServer();
    const scored = await startBenchServer({ distDir: dist, mapTileUrl: tiles.template });
    let lighthouseScores: Awaited<ReturnType<typeof measureLighthouse>>;
    try {
      lighthouseScores = await measureLighthouse(scored, options.lighthouse.pages, options.lighthouse.runs);
    } finally {
      await scored.stop();
      await tiles.close();
    }

    const results = {
      date: new Date(started).toISOString(),
      durationS: Math.round((Date.now() - started) / 1000),
      machine: { ...before, loadAverageAtEnd: machine().loadAverage },
      settings: {
        pageRuns: options.pageRuns,
        alerts: options.alerts,
        durationS: options.durationS,
        connections: options.connections,
        fanOut: options.fanOut,
        lighthouse: options.lighthouse,
        postgres: withPg ? 'fresh schema, dropped after' : `not run: ${pgProblem}`,
      },
      budgets: BUDGETS,
      weight,
      pageLoad,
      press,
      throughput,
      fanOut,
      lighthouse: lighthouseScores,
    };
    writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
    return results;
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
}

export type BenchResults = Awaited<ReturnType<typeof runBench>>;

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const results = await runBench({
    ...FULL,
    pgUrl: process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    out: path.join(import.meta.dirname, 'results.json'),
    log: (line) => console.error(line),
  });
  const { table, failed } = renderTable(results);
  console.log(table);
  if (failed.length > 0) {
    console.error(`\nOver budget: ${failed.join('; ')}`);
    process.exitCode = 1;
  }
}
