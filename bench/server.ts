// The server under test, run in its own process (`fork` with tsx) so the load generator and
// the browser never share its event loop. It seeds users directly in its database, times
// every request to the alert route and every call to the SMS port, and answers over IPC.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { openDatabase } from '../server/db/index.js';
import type { SmsPort } from '../server/providers/sms/port.js';
import { directWrites, sentAlertWriter } from './direct.js';
import { adminQuery, seedOwners } from './fixtures.js';
import { epochMs } from './stats.js';

export type ServerRequest =
  | { type: 'seed'; contacts: number; countdown: number; language: 'pt' | 'en'; history: number }
  | { type: 'timings' }
  | { type: 'direct'; token: string; seconds: number; concurrency: number }
  | { type: 'stop' };

export interface SeedAnswer {
  token: string;
}
/** Per alert (by idempotency key): when its request arrived and when its first SMS reached the port. */
export interface AlertTiming {
  key: string;
  received: number;
  firstSend: number;
}
/** How late the server's event loop ran since the last seed (ms): how busy the machine was. */
export interface LoopDelay {
  p50: number;
  p95: number;
  max: number;
}
export type ServerMessage =
  | { type: 'ready'; port: number }
  | { type: 'seeded'; token: string }
  | { type: 'timings'; alerts: AlertTiming[]; sends: number; loopDelay: LoopDelay }
  | { type: 'direct'; perSecond: number }
  | { type: 'error'; message: string };

const send = (message: ServerMessage) => process.send?.(message);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-bench-'));
const pgUrl = process.env.BENCH_PG_URL;
const pgSchema = pgUrl ? `bench_${randomBytes(5).toString('hex')}` : undefined;

const admin = (query: string) => adminQuery(pgUrl, query);

/** An SMS provider that accepts at once and notes when each delivery was first handed over. */
function timingSms(): SmsPort & { firstSend: Map<string, number> } {
  const firstSend = new Map<string, number>();
  let count = 0;
  return {
    name: 'outbox',
    firstSend,
    async send(message) {
      if (!firstSend.has(message.reference)) firstSend.set(message.reference, epochMs());
      count += 1;
      return { providerMessageId: `SMbench${count}` };
    },
    onStatus() {},
  };
}

async function main(): Promise<void> {
  if (pgSchema) await admin(`create schema ${pgSchema}`);
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    BENCH_NO_RATE_LIMIT: '1',
    ...(pgUrl ? { DATABASE_URL: pgUrl } : {}),
    ...(process.env.BENCH_MAP_TILE_URL ? { MAP_TILE_URL: process.env.BENCH_MAP_TILE_URL } : {}),
  });
  const database = openDatabase({
    databaseUrl: pgUrl,
    dataDir,
    ...(pgSchema ? { pgSchema, pgPoolSize: 10 } : {}),
  });
  const sms = timingSms();
  const app = await buildApp({
    config,
    jwtSecret: randomBytes(32).toString('hex'),
    database,
    sms,
    logger: false,
    distDir: process.env.BENCH_DIST ?? path.join(dataDir, 'no-dist'),
  });
  /** Each arrival of an alert POST, by key: the page and its service worker may post one key more than once. */
  const received = new Map<string, number[]>();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const loopDelay = (): LoopDelay => {
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    return { p50: ms(loop.percentile(50)), p95: ms(loop.percentile(95)), max: ms(loop.max) };
  };
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && request.url.endsWith('/alerts/')) {
      const key = request.headers['idempotency-key'];
      if (typeof key === 'string') {
        const arrivals = received.get(key.toLowerCase());
        if (arrivals) arrivals.push(epochMs());
        else received.set(key.toLowerCase(), [epochMs()]);
      }
    }
  });
  // The ceiling: a route with no database, no validation and no rate limit.
  app.get('/bench/bare', async () => ({ ok: true }));
  // The server's epoch clock, for the page to set its own against (bench/browser.ts `clockOffset`).
  app.get('/bench/clock', async () => ({ now: epochMs() }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();

  async function seed(request: Extract<ServerRequest, { type: 'seed' }>): Promise<string> {
    const [owner] = await seedOwners(app.db, { owners: 1, ...request });
    if (!owner) throw new Error('no owner seeded');
    if (request.history > 0) await seedHistory(owner.id, request.history);
    return owner.token;
  }

  /**
   * `count` earlier alerts of the owner, a minute apart, their SMS sent; then, on PostgreSQL, the
   * tables' statistics, as autovacuum keeps them in a database that has been running. A schema
   * seconds old has none: each connection then keeps the plan it made for a statement while the
   * tables were empty, and the POST's replay lookup, planned on the owner's index of alerts by
   * mode and date rather than the unique one of keys, read every alert of the owner (its cost
   * grew run after run with the alerts the bench had sent).
   */
  async function seedHistory(userId: string, count: number): Promise<void> {
    const write = await sentAlertWriter(app, userId);
    const now = app.clock.now();
    await app.db.transaction().execute(async (trx) => {
      for (let i = count; i > 0; i -= 1) await write(trx, now - i * 60_000);
    });
    if (app.dialect === 'postgres')
      await sql`analyze users, contacts, subscriptions, alerts, deliveries`.execute(app.db);
  }

  async function timings(): Promise<AlertTiming[]> {
    const rows = await app.db
      .selectFrom('deliveries')
      .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
      .select(['deliveries.id as delivery', 'alerts.idempotency_key as key'])
      .execute();
    const first = new Map<string, number>();
    for (const row of rows) {
      const at = sms.firstSend.get(row.delivery);
      if (at !== undefined) first.set(row.key, Math.min(first.get(row.key) ?? at, at));
    }
    return [...first].flatMap(([key, firstSend]) => {
      // The arrival that was taken: the last one before the first SMS (an earlier one may have
      // been shed with a 503, a later one is a repeat answered from the stored alert).
      const at = received
        .get(key)
        ?.filter((t) => t <= firstSend)
        .at(-1);
      return at === undefined ? [] : [{ key, received: at, firstSend }];
    });
  }

  async function stop(): Promise<void> {
    await app.close();
    await database.close();
    if (pgSchema) await admin(`drop schema if exists ${pgSchema} cascade`);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }

  process.on('message', (message: ServerRequest) => {
    const work =
      message.type === 'seed'
        ? seed(message).then((token) => {
            loop.reset();
            send({ type: 'seeded', token });
          })
        : message.type === 'timings'
          ? timings().then((alerts) =>
              send({ type: 'timings', alerts, sends: sms.firstSend.size, loopDelay: loopDelay() }),
            )
          : message.type === 'direct'
            ? directWrites(app, message.token, message.seconds, message.concurrency).then((perSecond) =>
                send({ type: 'direct', perSecond }),
              )
            : stop();
    work.catch((error: Error) => send({ type: 'error', message: error.message }));
  });
  process.on('disconnect', () => void stop());
  send({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
}

main().catch(async (error: Error) => {
  send({ type: 'error', message: error.stack ?? error.message });
  if (pgSchema) await admin(`drop schema if exists ${pgSchema} cascade`).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});
