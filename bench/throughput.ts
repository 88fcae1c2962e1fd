import { randomUUID } from 'node:crypto';
import autocannon, { type Result } from 'autocannon';
import { measureFixedFloor } from './fixed-floor.js';
import { alertBody } from './fixtures.js';
import { startBenchServer } from './server-client.js';

/** One route under load: requests per second (mean, and min / median / max of the per-second samples). */
export interface RouteThroughput {
  route: string;
  mean: number;
  min: number;
  median: number;
  max: number;
  latencyP99Ms: number;
  /** Answers other than 2xx, and connection errors: a run with failures is not a valid figure. */
  failures: number;
  /** Share of the bare route's mean. */
  ratio: number;
}

export interface DbThroughput {
  db: 'SQLite' | 'PostgreSQL';
  routes: RouteThroughput[];
  /** The fixed minimal transaction (bench/fixed-floor.ts), per second: the POST's floor; the mean of `fixedFloorRuns`. */
  fixedFloorPerSecond: number;
  /** The fixed floor taken before the routes and after them. */
  fixedFloorRuns: number[];
  /** The alert POST's mean as a share of `fixedFloorPerSecond`. */
  postOfFixedFloor: number;
  /** The same alert written by the product's own transaction run directly (bench/direct.ts), per second. */
  directPerSecond: number;
  /** The alert POST's mean as a share of `directPerSecond`. */
  postOfDirect: number;
}

/** The owner's earlier alerts: the bench's POSTs add thousands more. */
const HISTORY = 1_000;

/** Seconds of the same load before each measured route, not counted. */
const WARMUP_S = 2;

/** Contacts of the measured owner, and so rows beside each alert in the floors. */
const CONTACTS = 2;

const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) / 100 : 0);

const figures = (route: string, result: Result, ceiling: number): RouteThroughput => ({
  route,
  mean: Math.round(result.requests.average),
  min: result.requests.min,
  median: result.requests.p50,
  max: result.requests.max,
  latencyP99Ms: result.latency.p99,
  failures: result.non2xx + result.errors + result.timeouts,
  ratio: share(result.requests.average, ceiling),
});

/**
 * Part 4: autocannon against the page-data route and the send route (a fresh Idempotency-Key
 * on every request, rate limits lifted) beside a bare route of the same server as the ceiling,
 * and the same alert written by direct transactions in the server's process, for as long and
 * with as many concurrent writers as connections; and the fixed minimal transaction in a process
 * of its own, as the send route's floor, before the server starts and after it has stopped: a
 * slow moment of the shared machine weighs on the floor as on the routes.
 */
export async function measureThroughput(
  db: DbThroughput['db'],
  options: { durationS: number; connections: number; pgUrl?: string },
): Promise<DbThroughput> {
  const floor = () =>
    measureFixedFloor({
      seconds: options.durationS,
      warmupS: WARMUP_S,
      concurrency: options.connections,
      contacts: CONTACTS,
      ...(options.pgUrl ? { pgUrl: options.pgUrl } : {}),
    });
  const floorBefore = await floor();
  const server = await startBenchServer(options.pgUrl ? { pgUrl: options.pgUrl } : {});
  let measured: { routes: RouteThroughput[]; post: number; directPerSecond: number };
  try {
    // An owner with a history, as in a running database (server.ts `seedHistory`).
    const token = await server.seed({ contacts: CONTACTS, history: HISTORY });
    // Each route first runs the same load for WARMUP_S, not counted: the floor runs after the
    // POST, its code already compiled by the POST's run, and the POST was measured from cold.
    const base = {
      connections: options.connections,
      duration: options.durationS,
      warmup: { connections: options.connections, duration: WARMUP_S },
    };
    const bare = await autocannon({ ...base, url: `${server.url}/bench/bare` });
    const page = await autocannon({ ...base, url: `${server.url}/api/emergency/public/${token}/` });
    const body = alertBody();
    const send = await autocannon({
      ...base,
      url: `${server.url}/api/emergency/public/${token}/alerts/`,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          setupRequest: (request) => ({
            ...request,
            headers: { ...request.headers, 'idempotency-key': randomUUID() },
          }),
        },
      ],
    });
    const directPerSecond = await server.direct(token, options.durationS, options.connections);
    const ceiling = bare.requests.average;
    measured = {
      post: send.requests.average,
      directPerSecond,
      routes: [
        figures('GET /bench/bare (ceiling)', bare, ceiling),
        figures('GET /api/emergency/public/{token}/', page, ceiling),
        figures('POST /api/emergency/public/{token}/alerts/', send, ceiling),
      ],
    };
  } finally {
    await server.stop();
  }
  const floorAfter = await floor();
  const fixedFloorPerSecond = Math.round((floorBefore + floorAfter) / 2);
  const { post, directPerSecond, routes } = measured;
  return {
    db,
    routes,
    fixedFloorPerSecond,
    fixedFloorRuns: [floorBefore, floorAfter],
    postOfFixedFloor: share(post, fixedFloorPerSecond),
    directPerSecond,
    postOfDirect: share(post, directPerSecond),
  };
}
