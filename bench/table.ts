import { WARM_FLOOR_PATH } from './browser.js';
import { INDEXED_PAGES } from './lighthouse.js';
import type { BenchResults } from './run.js';
import { BUDGETS } from './run.js';
import { type Summary, spread } from './stats.js';

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const ms = (value: number) => `${Math.round(value)} ms`;
const percent = (share: number) => `${Math.round(share * 100)} %`;
const mark = (ok: boolean) => (ok ? 'ok' : '**over**');
const times = (s: Summary) => `${spread(s, 1)} ms`;

/** The Markdown table docs/PERFORMANCE.md carries, and the budgets that failed. */
export function renderTable(r: BenchResults): { table: string; failed: string[] } {
  const failed: string[] = [];
  const rows: string[][] = [];
  const budgetRow = (figure: string, measured: string, budget: string, ok: boolean) => {
    rows.push([figure, measured, budget, mark(ok)]);
    if (!ok) failed.push(`${figure}: ${measured} (budget ${budget})`);
  };

  const e = r.weight.emergency;
  const a = r.weight.app;
  budgetRow(
    '1. Emergency page JS + CSS before its countdown shows (gzip)',
    `${kB(e.gzip)} (${e.files.length} files)`,
    `≤ ${kB(BUDGETS.emergencyGzipBytes)}`,
    e.gzip <= BUDGETS.emergencyGzipBytes,
  );
  budgetRow(
    '1. App JS + CSS before the home page is interactive (gzip)',
    `${kB(a.gzip)} (${a.files.length} files)`,
    `≤ ${kB(BUDGETS.appGzipBytes)}`,
    a.gzip <= BUDGETS.appGzipBytes,
  );
  const { warmOfflineMs: warm, coldSlow4gMs: cold } = r.pageLoad;
  budgetRow(
    `2a. Navigation → countdown, warm + offline, new tab (min / median / max of ${warm.n})`,
    times(warm),
    `median ≤ ${ms(BUDGETS.warmOfflineMedianMs)}`,
    warm.median <= BUDGETS.warmOfflineMedianMs,
  );
  const { warmOfflineFloorMs: warmFloor, coldSlow4gFloorMs: coldFloor } = r.pageLoad;
  const overFloor = (figure: Summary, floor: Summary) => Math.round((figure.median / floor.median) * 100) / 100;
  budgetRow(
    `2a. Its floor: the worker's smallest file (${WARM_FLOOR_PATH}) in a new tab, offline, to its load event`,
    `${times(warmFloor)}; the page takes ${overFloor(warm, warmFloor)}× its floor`,
    `≤ ${BUDGETS.warmOfflineOverFloor}× floor`,
    overFloor(warm, warmFloor) <= BUDGETS.warmOfflineOverFloor,
  );
  const same = r.pageLoad.warmOfflineSameTabMs;
  rows.push([
    `2a. The same, reopened in a tab already showing the page (min / median / max of ${same.n})`,
    times(same),
    '—',
    '',
  ]);
  budgetRow(
    `2b. Navigation → countdown, cold, slow 4G, 4× CPU (min / median / max of ${cold.n})`,
    `${times(cold)}; ${kB(r.pageLoad.coldTransferBytes.median)} transferred`,
    `median ≤ ${ms(BUDGETS.coldSlow4gMedianMs)}`,
    cold.median <= BUDGETS.coldSlow4gMedianMs,
  );
  budgetRow(
    `2b. Its floor: one static file of the page's ${kB(r.pageLoad.coldTransferBytes.median)}, same link and CPU, to its load event`,
    `${times(coldFloor)}; the page takes ${overFloor(cold, coldFloor)}× its floor`,
    `≤ ${BUDGETS.coldSlow4gOverFloor}× floor`,
    overFloor(cold, coldFloor) <= BUDGETS.coldSlow4gOverFloor,
  );
  const { wholePathMs: whole, serverPartMs: part } = r.press;
  budgetRow(
    `3. Press → SMS port, whole path (${whole.n} alerts; min / median / max)`,
    `${times(whole)}; p95 ${whole.p95} ms (server clock ${r.press.clockOffset.offsetMs.toFixed(1)} ms ahead of the page's, ± ${(r.press.clockOffset.roundTripMs / 2).toFixed(1)}, taken off)`,
    `p50 ≤ ${ms(BUDGETS.wholePathP50Ms)}`,
    whole.median <= BUDGETS.wholePathP50Ms,
  );
  budgetRow(
    `3. Request received → SMS port, server part (${part.n} alerts; min / median / max)`,
    `${times(part)}; p95 ${part.p95} ms (server event-loop delay meanwhile: p95 ${r.press.serverLoopDelayMs.p95} ms, max ${r.press.serverLoopDelayMs.max} ms)`,
    `p95 ≤ ${ms(BUDGETS.serverPartP95Ms)}`,
    part.p95 <= BUDGETS.serverPartP95Ms,
  );
  for (const db of r.throughput) {
    for (const route of db.routes) {
      rows.push([
        `4. ${db.db}: ${route.route}`,
        `${route.mean} req/s (per second ${route.min} / ${route.median} / ${route.max}); ${Math.round(route.ratio * 100)} % of ceiling; p99 ${route.latencyP99Ms} ms${route.failures ? `; ${route.failures} failed` : ''}`,
        '—',
        route.failures ? '**failures**' : '',
      ]);
      if (route.failures) failed.push(`${db.db} ${route.route}: ${route.failures} failed requests`);
    }
    rows.push(
      [
        `4. ${db.db}: the fixed minimal transaction, one alert and a row per contact (floor)`,
        `${db.fixedFloorPerSecond} alerts/s (before the routes ${db.fixedFloorRuns.join(', after ')})`,
        '—',
        '',
      ],
      [
        `4. ${db.db}: the same alert by the product's transaction, run directly`,
        `${db.directPerSecond} alerts/s`,
        '—',
        '',
      ],
    );
    const post = db.routes.find((route) => route.route.startsWith('POST'))?.mean ?? 0;
    const perSecond = db.db === 'SQLite' ? BUDGETS.alertPostPerSecondSqlite : 0;
    const ofFixed = BUDGETS.alertPostOfFixedFloor[db.db];
    budgetRow(
      `4. ${db.db}: the alert POST against its fixed floor`,
      `${post} req/s = ${percent(db.postOfFixedFloor)} of the fixed floor`,
      `≥ ${percent(ofFixed)} of floor${perSecond ? `; ≥ ${perSecond} req/s` : ''}`,
      db.postOfFixedFloor >= ofFixed && post >= perSecond,
    );
    const ofDirect = BUDGETS.alertPostOfDirect[db.db];
    budgetRow(
      `4. ${db.db}: the alert POST against the direct transactions`,
      `${percent(db.postOfDirect)} of the direct transactions`,
      `≥ ${percent(ofDirect)}`,
      db.postOfDirect >= ofDirect,
    );
  }
  for (const f of r.fanOut) {
    rows.push([
      `5. ${f.db}: fan-out, ${f.alerts} alerts × ${f.contactsPerAlert} contacts, provider ${f.providerDelayMs} ms/SMS`,
      `${f.seconds} s to the last SMS; ${f.deliveriesPerSecond} SMS/s; concurrency ${f.maxInFlight}`,
      '—',
      '',
    ]);
  }
  for (const { page, path, runs, scores } of r.lighthouse) {
    const indexed = INDEXED_PAGES.includes(page);
    const misses = [
      scores.performance < BUDGETS.lighthousePerformance && `performance ${scores.performance}`,
      scores.accessibility < BUDGETS.lighthouseAccessibility && `accessibility ${scores.accessibility}`,
      scores['best-practices'] < BUDGETS.lighthouseBestPractices && `best practices ${scores['best-practices']}`,
      indexed && scores.seo < BUDGETS.lighthouseSeo && `SEO ${scores.seo}`,
    ].filter((miss): miss is string => typeof miss === 'string');
    budgetRow(
      `6. Lighthouse, mobile: ${path} (median of ${runs})`,
      `performance ${scores.performance}, accessibility ${scores.accessibility}, best practices ${scores['best-practices']}, SEO ${scores.seo}${indexed ? '' : ' (noindex on purpose)'}`,
      `performance ≥ ${BUDGETS.lighthousePerformance}; accessibility, best practices ${BUDGETS.lighthouseAccessibility}${indexed ? `; SEO ${BUDGETS.lighthouseSeo}` : ''}`,
      misses.length === 0,
    );
  }
  const lines = [
    '| figure | measured | budget | |',
    '| --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
  const m = r.machine;
  lines.push(
    '',
    `Run ${r.date} in ${r.durationS} s on ${m.cpu} (${m.cores} cores, ${m.memoryGb} GB), ${m.os}, Node ${m.node}; ` +
      `load average ${m.loadAverage.join(' ')} at start, ${m.loadAverageAtEnd.join(' ')} at end.`,
  );
  return { table: lines.join('\n'), failed };
}
