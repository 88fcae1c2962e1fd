// The alert POST's fixed floor: the least a database can do to store an alert for its contacts,
// written with the stock driver alone (better-sqlite3, node-postgres) and the settings the server
// opens its database with, into tables of its own in a scratch database. It imports nothing of
// the product (tests/build/bench.test.ts reads this file's imports): what the product's own
// transaction grows to can never lower it, so the POST's share of it says what that growth costs.
// Run in a process of its own (`measureFixedFloor`), as the server is, with nothing else in it.
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export interface FloorOptions {
  /** Seconds measured, after `warmupS` not counted. */
  seconds: number;
  warmupS: number;
  /** Transactions under way at once on PostgreSQL (SQLite runs one at a time, as its one connection does). */
  concurrency: number;
  /** Rows written beside each alert, one per contact. */
  contacts: number;
  /** A PostgreSQL server to write to, in a schema of its own dropped after; unset: SQLite in a temp dir. */
  pgUrl?: string;
}

/**
 * The server's connection settings, written out here rather than imported: SQLite's pragmas
 * (WAL, checked foreign keys, NORMAL sync, its WAL copied into the file by a worker thread every
 * quarter second, the writer's own checkpoint only past 20,000 pages) and PostgreSQL's pool.
 * tests/build/bench.test.ts holds them to the server's.
 */
export const FLOOR_SETTINGS = {
  sqlitePragmas: {
    journal_mode: 'wal',
    foreign_keys: 1,
    busy_timeout: 5000,
    synchronous: 1,
    temp_store: 2,
    wal_autocheckpoint: 20_000,
  },
  checkpointEveryMs: 250,
  pgPool: { max: 10, connectionTimeoutMillis: 5_000 },
} as const;

const TABLES = [
  `create table floor_alerts (
    id text primary key, owner text not null, idempotency_key text not null,
    latitude real, longitude real, accuracy real, message text not null, created_at bigint not null)`,
  `create table floor_deliveries (
    id text primary key, alert_id text not null references floor_alerts (id),
    phone_number text not null, body text not null, status text not null, created_at bigint not null)`,
];

const MESSAGE = 'bench needs help.';
const OWNER = randomUUID();
const numberOf = (contact: number) => `+35191${String(contact).padStart(7, '0')}`;
const alertRow = (now: number) => [randomUUID(), OWNER, randomUUID(), 38.72225, -9.13934, 12, MESSAGE, now];
const deliveryRows = (alertId: string, contacts: number, now: number) =>
  Array.from({ length: contacts }, (_, c) => [randomUUID(), alertId, numberOf(c), MESSAGE, 'sent', now]);
/** `rows` groups of `columns` parameters, each written by `mark` from its position (0 first). */
const parameters = (rows: number, columns: number, mark: (index: number) => string) =>
  Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: columns }, (_, c) => mark(r * columns + c)).join(', ')})`,
  ).join(', ');
const sqliteMark = () => '?';
const pgMark = (from: number) => (index: number) => `$${from + index}`;

/** Runs `write` back to back (`concurrency` at once) for warm-up plus `seconds`; transactions a second measured. */
async function timed(options: FloorOptions, concurrency: number, write: () => unknown): Promise<number> {
  const run = async (seconds: number) => {
    const until = performance.now() + seconds * 1000;
    let writes = 0;
    const loop = async () => {
      while (performance.now() < until) {
        await write();
        writes += 1;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, loop));
    return writes / ((performance.now() - started) / 1000);
  };
  await run(options.warmupS);
  return Math.round(await run(options.seconds));
}

// The checkpointer's own code, as the server runs one: CommonJS, evaluated as it is.
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const db = new (require(workerData.module))(workerData.file);
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/** better-sqlite3 for this Node, as the server picks it: 13 from Node 22, 12 before (under its alias). */
function sqliteModule(): string {
  const require = createRequire(import.meta.url);
  return require.resolve(
    Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20',
  );
}

/** Opens a SQLite file with the server's settings and the floor's tables; `close` removes its checkpointer. */
export function openFloorSqlite(file: string): { db: BetterSqlite3.Database; close: () => Promise<void> } {
  const module = sqliteModule();
  const SQLite = createRequire(import.meta.url)(module) as typeof BetterSqlite3;
  const db = new SQLite(file);
  for (const [name, value] of Object.entries(FLOOR_SETTINGS.sqlitePragmas)) db.pragma(`${name} = ${value}`);
  for (const table of TABLES) db.exec(table);
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: { file, module, everyMs: FLOOR_SETTINGS.checkpointEveryMs },
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    db,
    close: async () => {
      worker.postMessage('stop');
      await exited;
      db.close();
    },
  };
}

/** SQLite: one alert and its contacts' rows in one transaction, by statements prepared once. */
export function sqliteWriter(db: BetterSqlite3.Database, contacts: number): () => void {
  const insertAlert = db.prepare(`insert into floor_alerts values ${parameters(1, 8, sqliteMark)}`);
  const insertDeliveries = db.prepare(`insert into floor_deliveries values ${parameters(contacts, 6, sqliteMark)}`);
  return db.transaction(() => {
    const now = Date.now();
    const alert = alertRow(now);
    insertAlert.run(alert);
    insertDeliveries.run(deliveryRows(alert[0] as string, contacts, now).flat());
  });
}

/** Opens a PostgreSQL pool with the server's settings on a new schema with the floor's tables; `close` drops it. */
export async function openFloorPostgres(url: string): Promise<{ pool: pg.Pool; close: () => Promise<void> }> {
  const schema = `floor_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const pool = new pg.Pool({ connectionString: url, ...FLOOR_SETTINGS.pgPool, options: `-c search_path=${schema}` });
  const close = async () => {
    await pool.end();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  };
  try {
    for (const table of TABLES) await pool.query(table);
  } catch (error) {
    await close();
    throw error;
  }
  return { pool, close };
}

/** PostgreSQL: one alert and its contacts' rows in one statement, which is a transaction of its own. */
export function postgresWriter(pool: pg.Pool, contacts: number): () => Promise<unknown> {
  const text = `with alert as (insert into floor_alerts values ${parameters(1, 8, pgMark(1))})
    insert into floor_deliveries values ${parameters(contacts, 6, pgMark(9))}`;
  return () => {
    const now = Date.now();
    const alert = alertRow(now);
    return pool.query(text, [...alert, ...deliveryRows(alert[0] as string, contacts, now).flat()]);
  };
}

async function sqliteFloor(options: FloorOptions): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-floor-'));
  const { db, close } = openFloorSqlite(path.join(dir, 'floor.sqlite'));
  try {
    return await timed(options, 1, sqliteWriter(db, options.contacts));
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresFloor(options: FloorOptions & { pgUrl: string }): Promise<number> {
  const { pool, close } = await openFloorPostgres(options.pgUrl);
  try {
    return await timed(options, options.concurrency, postgresWriter(pool, options.contacts));
  } finally {
    await close();
  }
}

/** Fixed-floor transactions a second in this process. */
export const fixedFloor = (options: FloorOptions): Promise<number> =>
  options.pgUrl ? postgresFloor({ ...options, pgUrl: options.pgUrl }) : sqliteFloor(options);

/** Fixed-floor transactions a second, measured in a new process that runs this file alone. */
export function measureFixedFloor(options: FloorOptions): Promise<number> {
  const child = fork(import.meta.filename, [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { perSecond?: number; error?: string }) =>
      message.error === undefined
        ? resolve(message.perSecond ?? 0)
        : reject(new Error(`fixed floor: ${message.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`fixed floor exited with code ${code}`)));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename) && process.send) {
  const send = process.send.bind(process);
  fixedFloor(JSON.parse(process.argv[2] ?? '{}') as FloorOptions).then(
    (perSecond) => send({ perSecond }, () => process.exit(0)),
    (error: Error) => send({ error: error.stack ?? error.message }, () => process.exit(1)),
  );
}
