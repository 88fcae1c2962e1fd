// `npm run loadtest -- --disaster [--owners 10000]`: a regional disaster. Every owner (3 contacts
// each) alerts once within 60 s against 3 server processes on one PostgreSQL database with
// Redis, their SMS through the Twilio adapter and SDK to a fake Twilio on loopback that takes
// 50 ms per message; rate limits and SMS budgets on as in production, each owner from an address
// of their own (X-Forwarded-For, TRUST_PROXY=1). Checks 0 alerts lost, 0 duplicate SMS, 0 5xx,
// p95 press → stored under 1 s and the provider never holding more than its bound; prints the
// figures and exits non-zero on a miss.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminQuery, alertBody, seedOwners } from '../../bench/fixtures.js';
import { summarize } from '../../bench/stats.js';
import { migrateToLatest, openDatabase } from '../../server/db/index.js';
import { AUTH_TOKEN, fakeTwilio, SID } from '../../tests/server/twilio-fake.js';
import { type ServerProcess, startServer, stopServer } from './processes.js';

export const PROCESSES = 3;
export const CONTACTS = 3;
/** The window the owners' presses are spread over by default. */
export const WINDOW_MS = 60_000;
export const PROVIDER_DELAY_MS = 50;
/** Each process's SMS concurrency (SMS_CONCURRENCY, the default): the provider bound is this × processes. */
const SMS_CONCURRENCY = 10;
const P95_LIMIT_MS = 1_000;
/** How long the SMS may take to drain after the last alert. */
const DRAIN_LIMIT_MS = 240_000;

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = (query: string) => adminQuery(ADMIN_URL, query);

/** A PostgreSQL database of the run's own, on the test server; dropped by `drop`. */
export async function runDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A server process's settings as in production: PostgreSQL, Redis, limits on, behind a proxy, Twilio at `twilioUrl`. */
export const serverEnv = (databaseUrl: string, twilioUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  REDIS_URL,
  HOST: '127.0.0.1',
  PORT: '0',
  TRUST_PROXY: '1',
  JWT_SECRET: randomBytes(32).toString('base64url'),
  LOG_LEVEL: 'warn',
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: AUTH_TOKEN,
  TWILIO_FROM: '+15005550006',
  SMS_CONCURRENCY: String(SMS_CONCURRENCY),
  DISASTER_TWILIO_URL: twilioUrl,
});

/** Owner `i`'s own client address (X-Forwarded-For behind TRUST_PROXY). */
export const ownerAddress = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * One owner's press: the page's POST, sent again with the same key and body after a 503, 429 or
 * a lost answer (`attempts` in all, half a second apart), each attempt to the server `target`
 * names for it (a load balancer's next one).
 */
export async function press(target: (attempt: number) => string, token: string, address: string, attempts = 10) {
  const key = randomUUID();
  // As the page keeps it: a retry with another body under the same key is refused (422).
  const body = alertBody();
  const started = performance.now();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const status = await fetch(`${target(attempt)}/api/emergency/public/${token}/alerts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-forwarded-for': address },
      body,
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    statuses.push(status);
    if (status === 200 || status === 201) return { ms: performance.now() - started, statuses, stored: true };
    if (status >= 400 && status < 500 && status !== 429) break;
    await sleep(500);
  }
  return { ms: performance.now() - started, statuses, stored: false };
}

export interface DisasterFigures {
  owners: number;
  processes: number;
  pressedS: number;
  stored: number;
  lost: number;
  serverErrors: number;
  retried: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** SMS of the alerts' deliveries handed to the provider (each delivery once, duplicates aside). */
  sms: number;
  /** Others: the escalation's second round, when the run outlasts ESCALATION_AFTER_SECONDS. */
  otherSms: number;
  /** Escalation calls placed. */
  calls: number;
  duplicates: number;
  deliveries: Record<string, number>;
  lastSmsS: number;
  providerMaxInFlight: number;
  providerBound: number;
}

/**
 * Runs the scenario: `owners` presses spread over `windowMs`; the figures, and what missed its
 * target. `p95LimitMs`: the latency target (none for a run too small to hold one).
 */
export async function runDisaster(
  owners: number,
  windowMs = WINDOW_MS,
  p95LimitMs = P95_LIMIT_MS,
): Promise<{ figures: DisasterFigures; misses: string[] }> {
  const database = await runDatabase('alerta_disaster');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-disaster-'));
  const provider = await fakeTwilio({ delayMs: PROVIDER_DELAY_MS });
  const handle = openDatabase({ databaseUrl: database.url, dataDir });
  const servers: ServerProcess[] = [];
  try {
    console.error(`disaster: seeding ${owners} owners × ${CONTACTS} contacts`);
    await migrateToLatest(handle.db);
    const seeded = await seedOwners(handle.db, { owners, contacts: CONTACTS });
    const env = serverEnv(database.url, provider.url);
    for (let p = 0; p < PROCESSES; p += 1) {
      servers.push(await startServer({ ...env, DATA_DIR: mkdtempSync(path.join(dataDir, `p${p}-`)) }));
    }

    console.error(`disaster: ${owners} alerts within ${windowMs / 1000} s over ${PROCESSES} processes`);
    const started = performance.now();
    const presses = await Promise.all(
      seeded.map(async ({ token }, i) => {
        await sleep((i * windowMs) / owners);
        return press(() => (servers[i % PROCESSES] as ServerProcess).url, token, ownerAddress(i));
      }),
    );
    const pressedS = (performance.now() - started) / 1000;

    const messages = () => provider.requests.filter((r) => r.path.endsWith('/Messages.json'));
    const expected = owners * CONTACTS;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    const uniqueSent = () => new Set(messages().map((m) => m.form.StatusCallback)).size;
    while (uniqueSent() < expected && Date.now() < deadline) await sleep(500);
    await sleep(2_000); // any duplicate still on its way
    const drainedS = (performance.now() - started) / 1000;

    const alerts = await handle.db
      .selectFrom('alerts')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const byStatus = await handle.db
      .selectFrom('deliveries')
      .select(['status', ({ fn }) => fn.countAll<string>().as('n')])
      .groupBy('status')
      .execute();
    const references = messages().map((m) => new URL(m.form.StatusCallback ?? 'http://x/').searchParams.get('d'));
    const duplicates = references.length - new Set(references).size;
    // The alerts' own SMS; a run longer than ESCALATION_AFTER_SECONDS also sends the second round.
    const alertDeliveries = new Set(
      (await handle.db.selectFrom('deliveries').select('id').where('kind', '=', 'alert').execute()).map((d) => d.id),
    );
    const alertSms = references.filter((d) => d !== null && alertDeliveries.has(d));
    const alertsSent = new Set(alertSms).size;
    const latency = summarize(presses.map((p) => p.ms));
    const serverErrors = presses.flatMap((p) => p.statuses).filter((s) => s >= 500).length;
    const retried = presses.filter((p) => p.statuses.length > 1).length;
    const lost = owners - Number(alerts.n);
    const figures: DisasterFigures = {
      owners,
      processes: PROCESSES,
      pressedS: Math.round(pressedS * 10) / 10,
      stored: presses.filter((p) => p.stored).length,
      lost,
      serverErrors,
      retried,
      p50Ms: Math.round(latency.median),
      p95Ms: Math.round(latency.p95),
      maxMs: Math.round(latency.max),
      sms: alertSms.length,
      otherSms: references.length - alertSms.length,
      calls: provider.requests.filter((r) => r.path.endsWith('/Calls.json')).length,
      duplicates,
      deliveries: Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)])),
      lastSmsS: Math.round(drainedS * 10) / 10,
      providerMaxInFlight: provider.maxInFlight(),
      providerBound: SMS_CONCURRENCY * PROCESSES,
    };
    const misses = [
      lost !== 0 && `${lost} alerts lost`,
      figures.stored !== owners && `${owners - figures.stored} presses never stored`,
      duplicates !== 0 && `${duplicates} duplicate SMS`,
      serverErrors !== 0 && `${serverErrors} 5xx answers`,
      figures.p95Ms >= p95LimitMs && `p95 press → stored ${figures.p95Ms} ms`,
      alertsSent !== expected && `${alertsSent} of ${expected} alert SMS handed to the provider`,
      figures.providerMaxInFlight > figures.providerBound &&
        `the provider held ${figures.providerMaxInFlight} at once (bound ${figures.providerBound})`,
    ].filter((miss): miss is string => typeof miss === 'string');
    return { figures, misses };
  } finally {
    await Promise.all(servers.map(stopServer));
    await handle.close();
    provider.server.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
