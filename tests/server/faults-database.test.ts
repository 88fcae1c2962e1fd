import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { openDatabase } from '../../server/db/index.js';
import { SQLite } from '../../server/db/sqlite-driver.js';
import { ManualClock } from '../../server/lib/clock.js';
import { startTcpProxy, type TcpProxy } from './faults/tcp-proxy.js';
import { alertSms, expectAllSentOnce, type Subscriber, sendAlert, subscriber } from './faults/world.js';
import { buildTestApp, dbLabel, describeOn, type TestApp } from './helper.js';

/**
 * Each client's pause between requests (ms): traffic pacing, not a wait for anything, so the
 * dev outbox (last 1000 SMS) holds every message of the run.
 */
const PACE_MS = 40;
const pace = () => new Promise((resolve) => setTimeout(resolve, PACE_MS));

/** How long each phase of the outage may take to show (ms). */
const PHASE_TIMEOUT_MS = 15_000;

interface Outcome {
  kind: 'alert' | 'health' | 'me';
  key?: string;
  status: number;
  startedAt: number;
  retryAfter?: string;
}

/** Mixed traffic from `workers` clients until `stop()`: alerts with new keys, health checks, /me. */
function load(app: FastifyInstance, person: Subscriber, workers = 4) {
  const outcomes: Outcome[] = [];
  let running = true;
  const worker = async (n: number) => {
    for (let i = 0; running; i += 1) {
      const kind = (['alert', 'health', 'me'] as const)[(n + i) % 3]!;
      const key = randomUUID();
      const startedAt = Date.now();
      const res =
        kind === 'alert'
          ? await sendAlert(app, person.token, { key })
          : await app.inject({
              method: 'GET',
              url: kind === 'health' ? '/api/health' : '/api/users/me/',
              headers: person.user.headers,
            });
      outcomes.push({
        kind,
        ...(kind === 'alert' ? { key } : {}),
        status: res.statusCode,
        startedAt,
        ...(res.headers['retry-after'] ? { retryAfter: String(res.headers['retry-after']) } : {}),
      });
      await pace();
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, n) => worker(n)));
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Resends every alert whose answer was lost with its own key, then checks nothing is half-written or lost. */
async function settleAndCheck(app: FastifyInstance, person: Subscriber, outcomes: Outcome[]) {
  const keys = outcomes.filter((o) => o.kind === 'alert');
  for (const o of keys.filter((k) => k.status === 503)) {
    const again = await sendAlert(app, person.token, { key: o.key! });
    expect([200, 201]).toContain(again.statusCode);
  }
  const alerts = await app.db.selectFrom('alerts').select(['id', 'idempotency_key']).execute();
  expect(new Set(alerts.map((a) => a.idempotency_key))).toEqual(new Set(keys.map((k) => k.key)));
  const counts = await app.db
    .selectFrom('deliveries')
    .select(['alert_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('alert_id')
    .execute();
  expect(counts).toHaveLength(alerts.length);
  for (const row of counts) expect(Number(row.n), 'no half-written alert').toBe(person.phones.length);
}

// A PostgreSQL server restart; the SQLite pass runs the file-lock case below instead.
describeOn('postgres')(`PostgreSQL restarted under load (PostgreSQL pass only) (${dbLabel})`, () => {
  const url = process.env.TEST_DATABASE_URL ?? '';
  const schema = `t_fault_${randomBytes(5).toString('hex')}`;
  const appName = `alerta-fault-${randomBytes(4).toString('hex')}`;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let clock: ManualClock;
  let dataDir: string;
  let close: () => Promise<void>;
  /** What the pool told of its connections' errors (the server logs each). */
  const connectionErrors: Error[] = [];
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const target = new URL(url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('application_name', appName);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-pgfault-'));
    const handle = openDatabase({
      databaseUrl: viaProxy.toString(),
      dataDir,
      pgSchema: schema,
      pgPoolSize: 5,
      onConnectionError: (error) => connectionErrors.push(error),
    });
    clock = new ManualClock(Date.now());
    app = await buildApp({
      config: loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        APP_URL: 'http://alerta.test',
        BENCH_NO_RATE_LIMIT: '1',
      }),
      jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
      database: handle,
      clock,
      logger: false,
      distDir: path.join(dataDir, 'no-dist'),
    });
    await app.ready();
    close = async () => {
      await app.close();
      await handle.close();
      await proxy.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop schema if exists ${schema} cascade`);
      await cleanup.end();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await close?.();
  });

  it('answers 503 while it is down, recovers by itself, and loses or half-writes no alert', async () => {
    const person = await subscriber(app, 3);
    const traffic = load(app, person);
    const { outcomes } = traffic;
    const waitFor = (check: () => void) => vi.waitFor(check, { timeout: PHASE_TIMEOUT_MS, interval: 20 });
    // Some traffic answered while the database is up.
    await waitFor(() => expect(outcomes.filter((o) => o.status < 300).length).toBeGreaterThan(5));
    // What answered before the cut, taken as it is cut: counted by the time it ended, an answer
    // ending in the very millisecond the cut was timed at was left out, and the count fell short.
    const before = [...outcomes];
    const cutAt = Date.now();
    proxy.cut();
    // Some traffic started and answered while it is down.
    await waitFor(() => expect(outcomes.filter((o) => o.startedAt > cutAt + 50).length).toBeGreaterThan(5));
    // What answered while it was down, taken before the database comes back (an answer that
    // ends in the same millisecond as the restore is still one of them).
    const during = outcomes.filter((o) => o.startedAt > cutAt + 50);
    const restoredAt = Date.now();
    proxy.restore();
    // Then the restarted server drops the sessions that survived: only this app's, by name,
    // once the app is back on the database.
    await waitFor(() => expect(outcomes.some((o) => o.startedAt > restoredAt && o.status < 300)).toBe(true));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [appName]);
    await admin.end();
    const terminatedAt = Date.now();
    // The sessions ended under the pool were told, not swallowed.
    await waitFor(() => expect(connectionErrors.some((e) => /terminat/i.test(e.message))).toBe(true));
    // Recovered by itself: a full second of traffic after the sessions were dropped, all answered.
    await waitFor(() => {
      const recent = outcomes.filter((o) => o.startedAt > Math.max(terminatedAt, Date.now() - 1000));
      expect(Date.now() - terminatedAt).toBeGreaterThan(1000);
      expect(recent.length).toBeGreaterThan(5);
      expect(recent.every((o) => o.status < 300)).toBe(true);
    });
    await traffic.stop();

    expect(
      outcomes.filter((o) => o.status >= 500 && o.status !== 503),
      'no 500',
    ).toEqual([]);
    expect(outcomes.every((o) => [200, 201, 503].includes(o.status))).toBe(true);
    const lastSecond = outcomes.filter((o) => o.startedAt > Date.now() - 1000);
    expect(before.length).toBeGreaterThan(5);
    expect(before.every((o) => o.status < 300)).toBe(true);
    expect(during.length).toBeGreaterThan(5);
    for (const o of during) {
      expect(o.status, `${o.kind} while down`).toBe(503);
      // The health probe says "unavailable" in its body; API answers also say when to retry.
      if (o.kind !== 'health') expect(o.retryAfter, 'Retry-After on a 503').toBe('5');
    }
    expect(lastSecond.length).toBeGreaterThan(5);
    expect(
      lastSecond.every((o) => o.status < 300),
      'recovered without a restart of the app',
    ).toBe(true);

    await settleAndCheck(app, person, outcomes);
    // Sends cut off mid-way are taken over once their lease runs out.
    clock.advance(5 * 60_000);
    await app.dispatcher.drain();
    const deliveries = await app.db.selectFrom('deliveries').select('status').execute();
    for (const d of deliveries) expect(['sent', 'delivered']).toContain(d.status);
    // At least once: an SMS accepted just as the database went away may be sent again after the lease.
    const sms = await alertSms(app.db, app.outbox);
    expect(sms.length).toBeGreaterThanOrEqual(deliveries.length);
    expect(sms.length).toBeLessThanOrEqual(deliveries.length + 10);
  });
});

// The embedded database's outage; the PostgreSQL pass runs the restart case above instead.
describeOn('sqlite')(`SQLite file locked by another process (SQLite pass only) (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ BENCH_NO_RATE_LIMIT: '1' });
    // Give up on a locked file quickly in this test (production waits 5 s).
    await sql`pragma busy_timeout = 200`.execute(t.app.db);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 503 while another process holds the write lock, then recovers with nothing half-written', async () => {
    const person = await subscriber(t.app, 3);
    const other = new SQLite(path.join(t.dataDir, 'alerta.sqlite'));
    other.exec('begin exclusive');
    const blocked = [await sendAlert(t.app, person.token), await sendAlert(t.app, person.token)];
    for (const res of blocked) {
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        detail: 'The service is briefly unavailable. Please try again in a few seconds.',
        code: 'unavailable',
      });
      expect(res.headers['retry-after']).toBe('5');
    }
    // Reads still work: WAL lets them through the writer's lock.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: person.user.headers })).statusCode,
    ).toBe(200);
    other.exec('commit');
    other.close();

    const key = randomUUID();
    expect((await sendAlert(t.app, person.token, { key })).statusCode).toBe(201);
    expect((await sendAlert(t.app, person.token, { key })).statusCode).toBe(200);
    const alerts = await t.app.db.selectFrom('alerts').select('id').execute();
    expect(alerts).toHaveLength(1);
    await t.app.dispatcher.drain();
    expect(await expectAllSentOnce(t.app.db, t.app.outbox, 3)).toBe(3);
  });
});
