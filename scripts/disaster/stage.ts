// The stage of the disaster scenarios (run.ts, crash.ts): a PostgreSQL database of the run's
// own with seeded owners, Redis, a fake Twilio on loopback taking 50 ms a message, server
// processes configured as in production (scripts/disaster/server.ts), and the owners' presses
// as the emergency page sends them. Everything is taken down when the scenario ends.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminQuery, alertBody, seedOwners } from '../../bench/fixtures.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../server/db/index.js';
import { AUTH_TOKEN, type FakeTwilio, fakeTwilio, SID } from '../../tests/server/twilio-fake.js';
import { type ServerProcess, startServer, stopServer } from './processes.js';

export const PROCESSES = 3;
export const CONTACTS = 3;
export const PROVIDER_DELAY_MS = 50;
/** Each process's SMS concurrency (SMS_CONCURRENCY, the default): the provider bound is this × processes. */
export const SMS_CONCURRENCY = 10;

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admin = (query: string) => adminQuery(ADMIN_URL, query);

/** A PostgreSQL database of the run's own, on the test server; dropped by `drop`. */
async function runDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A server process's settings as in production: PostgreSQL, Redis, limits on, behind a proxy, Twilio at `twilioUrl`. */
const serverEnv = (databaseUrl: string, twilioUrl: string): Record<string, string> => ({
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

/** What a scenario runs on. */
export interface Stage {
  handle: DatabaseHandle;
  provider: FakeTwilio;
  /** The owners seeded, each with their link's token. */
  seeded: { id: string; token: string }[];
  /** The server processes up now; whatever is here when the scenario ends is stopped. */
  servers: ServerProcess[];
  /** Starts one more server process, with a DATA_DIR of its own (not added to `servers`). */
  launch(): Promise<ServerProcess>;
}

/**
 * Sets up the stage (`name` labels its database, files and lines), seeds `owners` owners with
 * CONTACTS contacts each, runs `scenario` on it and takes it all down, whatever happened.
 */
export async function onStage<T>(name: string, owners: number, scenario: (stage: Stage) => Promise<T>): Promise<T> {
  const database = await runDatabase(`alerta_${name}`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `alerta-${name}-`));
  const provider = await fakeTwilio({ delayMs: PROVIDER_DELAY_MS });
  const handle = openDatabase({ databaseUrl: database.url, dataDir });
  const env = serverEnv(database.url, provider.url);
  let launched = 0;
  const servers: ServerProcess[] = [];
  try {
    console.error(`${name}: seeding ${owners} owners × ${CONTACTS} contacts`);
    await migrateToLatest(handle.db);
    const seeded = await seedOwners(handle.db, { owners, contacts: CONTACTS });
    const launch = () => {
      launched += 1;
      return startServer({ ...env, DATA_DIR: mkdtempSync(path.join(dataDir, `p${launched}-`)) });
    };
    return await scenario({ handle, provider, seeded, servers, launch });
  } finally {
    await Promise.all(servers.map(stopServer));
    await handle.close();
    provider.server.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The delivery each SMS the provider accepted was sent for (its status callback's `d`), in the order accepted. */
export const sentReferences = (provider: FakeTwilio) =>
  provider.messages.map((m) => new URL(m.statusCallback ?? 'http://x/').searchParams.get('d'));

/** What missed its target: the text of each check that failed. */
export const missed = (checks: (string | false)[]) => checks.filter((miss): miss is string => typeof miss === 'string');
