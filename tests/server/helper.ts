import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, vi } from 'vitest';
import { type AppOptions, buildApp, loggerOptions } from '../../server/app.js';
import { type Config, loadConfig } from '../../server/config.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../server/db/index.js';
import type { User } from '../../server/db/schema.js';
import { hashPassword } from '../../server/features/accounts/passwords.js';
import { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import type { OutboxSms } from '../../server/providers/sms/outbox.js';
import { OUTBOX_KEY } from '../e2e/server.js';

export { OUTBOX_KEY, outboxJsonPath } from '../e2e/server.js';

/** Which database this run uses: `TEST_DB=postgres` (with TEST_DATABASE_URL) or SQLite. */
export const dbKind: 'sqlite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
export const dbLabel = dbKind === 'postgres' ? 'PostgreSQL' : 'SQLite';

/** A suite that exists only in the pass on `kind` (what it tests has no counterpart on the other database). */
export function describeOn(kind: typeof dbKind): (name: string, body: () => void) => void {
  return kind === dbKind ? describe : () => {};
}

export interface TestApp {
  app: FastifyInstance;
  clock: ManualClock;
  config: Config;
  dataDir: string;
  database: DatabaseHandle;
  /** The embedded SMS adapter, with failNext() for fault tests (unless `providers` gave another). */
  sms: OutboxSms;
  close(): Promise<void>;
}

/** The PostgreSQL database of a `TEST_DB=postgres` run. */
function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  return url;
}

/** Runs statements on the test database over a connection of their own. */
async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database: a temporary SQLite file, or a new PostgreSQL schema dropped on close. */
export async function freshDatabase(
  dataDir: string,
  pgPoolSize = 5,
): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  if (dbKind === 'sqlite') {
    const handle = openDatabase({ dataDir });
    return { handle, drop: async () => {} };
  }
  const url = testDatabaseUrl();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`create schema ${schema}`));
  const handle = openDatabase({ databaseUrl: url, dataDir, pgSchema: schema, pgPoolSize });
  return {
    handle,
    async drop() {
      await withAdmin((admin) => admin.query(`drop schema if exists ${schema} cascade`));
    },
  };
}

/**
 * Migrated PostgreSQL schemas of this test process that no app uses, every table emptied:
 * creating and migrating a schema takes ~300 ms, emptying one with TRUNCATE a fraction of that.
 * They are named after the run (schemaPrefix) and dropped when it ends.
 */
const idleSchemas: string[] = [];
/** The tables a migrated schema has, bookkeeping left out; set by the first one migrated here. */
let migratedTables: string[] | undefined;
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

async function tablesOf(admin: pg.Client, schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by table_name`,
    [schema],
  );
  return rows.map((row) => row.table_name).filter((name) => !MIGRATION_TABLES.has(name));
}

/** Where this run's schemas start (`t_<run>_`), from tests/server/global-setup.ts, which drops them at the end. */
function schemaPrefix(): string {
  const prefix = inject('pgSchemaPrefix');
  if (!prefix) throw new Error('the server project runs tests/server/global-setup.ts first (vitest.config.ts)');
  return prefix;
}

/**
 * A migrated database with no rows, for an app (which runs the migrations again and finds none
 * left). SQLite: a new file, migrated by the app itself in milliseconds. PostgreSQL: an idle
 * schema of this process, or a new one migrated here; `release` empties it for the next app, or
 * drops it when its tables are no longer those of a migrated schema.
 */
async function appDatabase(dataDir: string): Promise<{ handle: DatabaseHandle; release(): Promise<void> }> {
  if (dbKind === 'sqlite') return { handle: openDatabase({ dataDir }), release: async () => {} };
  const url = testDatabaseUrl();
  let schema = idleSchemas.pop();
  if (!schema) {
    const created = `${schemaPrefix()}${randomBytes(5).toString('hex')}`;
    await withAdmin((admin) => admin.query(`create schema ${created}`));
    const migrating = openDatabase({ databaseUrl: url, dataDir, pgSchema: created, pgPoolSize: 1 });
    try {
      await migrateToLatest(migrating.db, created);
    } finally {
      await migrating.close();
    }
    migratedTables ??= await withAdmin(async (admin) => {
      const tables = await tablesOf(admin, created);
      const counts = tables.map((table) => `(select count(*) from ${created}.${table})`);
      const { rows } = await admin.query<{ rows: number }>(`select ${counts.join(' + ') || '0'} as rows`);
      // A migration that writes rows: TRUNCATE would remove them too, so no schema is reused.
      return rows[0]?.rows === 0 ? tables : [];
    });
    schema = created;
  }
  const taken = schema;
  const handle = openDatabase({ databaseUrl: url, dataDir, pgSchema: taken, pgPoolSize: 5 });
  return {
    handle,
    release: () =>
      withAdmin(async (admin) => {
        const tables = await tablesOf(admin, taken);
        if (tables.length === 0 || tables.join() !== migratedTables?.join()) {
          await admin.query(`drop schema if exists ${taken} cascade`);
          return;
        }
        const qualified = tables.map((table) => `${taken}.${table}`);
        await admin.query(`truncate table ${qualified.join(', ')} restart identity cascade`);
        idleSchemas.push(taken);
      }),
  };
}

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-signing';

/** A stream that appends each log line it receives to `lines`. */
export const collect = (lines: string[]) =>
  new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });

interface TestAppOptions {
  /** Capture the real request logging, at trace level, in these lines. */
  logLines?: string[];
  /** Serve a stand-in build (index, alert and live pages). */
  pages?: boolean;
  /** More files of that build, by path inside it (`assets/app.js`). */
  distFiles?: Record<string, string>;
  /** Real provider adapters (pointed at local fakes) instead of the embedded ones, made from the app's config. */
  providers?: (config: Config) => Pick<AppOptions, 'sms' | 'payments' | 'voice'>;
  /** What the load shedding reads instead of this process's own load. */
  loadProbe?: AppOptions['loadProbe'];
  /** Kysely plugins every query of the app goes through (a fault at the database's edge). */
  dbPlugins?: KyselyPlugin[];
}

/**
 * Builds the whole app on a fresh database with a manual clock; `env` overrides
 * settings, `setup` may add test-only routes before the app is ready.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  setup?: (app: FastifyInstance) => void | Promise<void>,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-test-'));
  const distDir = path.join(dataDir, options.pages ? 'dist' : 'no-dist');
  if (options.pages) {
    mkdirSync(distDir);
    for (const page of ['index.html', 'alert.html', 'live.html']) {
      writeFileSync(path.join(distDir, page), '<!doctype html><title>Alerta</title><div id="root"></div>');
    }
    for (const [file, text] of Object.entries(options.distFiles ?? {})) {
      mkdirSync(path.dirname(path.join(distDir, file)), { recursive: true });
      writeFileSync(path.join(distDir, file), text);
    }
  }
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    APP_URL: 'http://alerta.test',
    // As a server behind a proxy on the same machine would listen (a hop-count TRUST_PROXY needs it).
    HOST: '127.0.0.1',
    DEV_OUTBOX_KEY: OUTBOX_KEY,
    // Load shedding reads this process's event loop and heap, which a busy test machine fills
    // with other suites' work: off unless a test gives its own samples (tests/server/overload.test.ts).
    ...(options.loadProbe
      ? {}
      : {
          OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
          OVERLOAD_ALERT_EVENT_LOOP_DELAY_MS: '0',
          OVERLOAD_HEAP_USED_MB: '0',
          OVERLOAD_ALERT_HEAP_USED_MB: '0',
        }),
    ...env,
  });
  const clock = new ManualClock(Date.now());
  const { handle, release } = await appDatabase(dataDir);
  const plugins = options.dbPlugins ?? [];
  const database = { ...handle, db: plugins.reduce((db, plugin) => db.withPlugin(plugin), handle.db) };
  const app = await buildApp({
    config,
    jwtSecret: TEST_JWT_SECRET,
    database,
    clock,
    // With logLines, the real request logging at trace level, captured in memory.
    logger: options.logLines ? { ...(loggerOptions('trace') as object), stream: collect(options.logLines) } : false,
    distDir,
    loadProbe: options.loadProbe,
    ...options.providers?.(config),
  });
  await setup?.(app);
  await app.ready();
  return {
    app,
    clock,
    config,
    dataDir,
    database: handle,
    sms: app.sms as OutboxSms,
    async close() {
      await app.close();
      await handle.close();
      await release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Moves the app clock and the wall clock the rate-limit plugin's windows run on (`Date`,
 * frozen from the first call to the end of the test: tests/server/setup.ts restores it), so a test can see such a limit end.
 */
export function moveTime(t: TestApp, ms: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
  t.clock.advance(ms);
}

/**
 * The app of the enclosing describe: built before its tests, its SMS drained and the app
 * closed after them. Use it as the TestApp itself (`t.app`, `t.clock`) inside tests and hooks.
 */
export function suiteApp(...args: Parameters<typeof buildTestApp>): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await buildTestApp(...args);
  });
  afterAll(async () => {
    await current?.app.dispatcher.drain();
    await current?.close();
  });
  return new Proxy({} as TestApp, {
    get(_target, key) {
      if (!current) throw new Error('the suite app is built in beforeAll');
      return current[key as keyof TestApp];
    },
  });
}

export const TEST_PASSWORD = 'Sturdy-Pass-42';
let passwordHash: Promise<string> | undefined;

export interface TestUser {
  user: User;
  access: string;
  sessionId: string;
  /** `{authorization: 'Bearer …'}` for app.inject. */
  headers: { authorization: string };
}

/** Inserts a verified user (password TEST_PASSWORD) with a live session and returns its access token. */
export async function createUser(
  app: FastifyInstance,
  fields: Partial<Pick<User, 'username' | 'email' | 'email_verified' | 'language'>> = {},
): Promise<TestUser> {
  // Hashed as a sign-up would, at the cost tests/server/setup.ts sets.
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const now = app.clock.now();
  const username = fields.username ?? `user${randomBytes(4).toString('hex')}`;
  const user: User = {
    id: newId(),
    username,
    email: fields.email === undefined ? `${username}@example.com` : fields.email,
    password_hash: await passwordHash,
    email_verified: fields.email_verified ?? 1,
    language: fields.language ?? 'pt',
    alert_countdown_seconds: 5,
    display_name: null,
    time_zone: null,
    checkin_pin_hash: null,
    duress_pin_hash: null,
    escalation_after_seconds: null,
    token: null,
    trial_used_at: null,
    password_changed_at: now,
    created_at: now,
  };
  await app.db.insertInto('users').values(user).execute();
  const sessionId = newId();
  await app.db
    .insertInto('sessions')
    .values({ id: sessionId, user_id: user.id, created_at: now, revoked_at: null })
    .execute();
  const access = await app.tokens.signAccess(user.id, sessionId);
  return { user, access, sessionId, headers: { authorization: `Bearer ${access}` } };
}

export { NO_SUBSCRIPTION } from '../fixtures/profiles.js';

/** What a premium subscription shows on the first day of its 3-day trial. */
export const PREMIUM_TRIAL = {
  has_premium: true,
  is_in_trial: true,
  trial_days_left: 3,
  has_used_trial: true,
  plan: 'premium',
} as const;
