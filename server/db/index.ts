import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { type Checkpointer, startCheckpointer } from './sqlite-checkpoints.js';
import { SQLite } from './sqlite-driver.js';
import { keepingStatements } from './sqlite-statements.js';

export { migrate, migrateToLatest } from './migrate.js';

// int8 (bigint) columns hold epoch milliseconds, well inside Number's safe range.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
// numeric columns (e.g. count(*) results cast by PostgreSQL) as numbers too.
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export type Dialect = 'sqlite' | 'postgres';

/** A new DATA_DIR is readable by the server's user only, and so are the files in it. */
export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** A human description without secrets, for the start-up log. */
  description: string;
  /** The PostgreSQL schema in use when not the default one. */
  pgSchema?: string;
  close(): Promise<void>;
  /** SQLite in a file: the worker that checkpoints its WAL. */
  checkpointer?: Checkpointer;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  /** SQLite file name inside dataDir (default alerta.sqlite), or ':memory:'. */
  sqliteFile?: string;
  /** PostgreSQL schema to use instead of public (tests use one schema per run). */
  pgSchema?: string;
  pgPoolSize?: number;
  /** Told of a PostgreSQL connection's error (the server logs it); the query that meets it fails on its own. */
  onConnectionError?: (error: Error) => void;
}

/** Opens the database: PostgreSQL when a URL is given, otherwise SQLite in dataDir. */
export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.pgPoolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    // An idle client losing its connection must not crash the process, nor one in use: pg
    // emits 'error' on a checked-out client with no listener when the server goes away between
    // queries (a restart); the next query fails instead (a 503) and the pool drops the broken
    // client. Either is logged: an operator sees the database going away.
    const onError = options.onConnectionError ?? (() => {});
    pool.on('error', onError);
    pool.on('connect', (client) => client.on('error', onError));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const url = new URL(options.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      description: `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`,
      ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
      close: () => db.destroy(),
    };
  }
  const file = options.sqliteFile ?? 'alerta.sqlite';
  const location = file === ':memory:' ? file : path.join(options.dataDir, file);
  if (file !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true, mode: DATA_DIR_MODE });
    // Created 0600 before SQLite opens it; its -wal and -shm files take the same mode.
    if (!existsSync(location)) closeSync(openSync(location, 'a', DATA_FILE_MODE));
    else chmodSync(location, DATA_FILE_MODE);
  }
  const sqlite = new SQLite(location);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // Savepoints (grouped-transactions.ts) keep what they may roll back in memory, not in a temp file.
  sqlite.pragma('temp_store = MEMORY');
  // The WAL is copied into the file by a worker thread, off the event loop.
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(sqlite, location);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: keepingStatements(sqlite) }) });
  return {
    db,
    dialect: 'sqlite',
    description: `SQLite ${location}`,
    ...(checkpointer ? { checkpointer } : {}),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** The database's own time, in epoch milliseconds: the clock every process's schedule follows. */
export async function databaseNow(db: Kysely<Database>, dialect: Dialect): Promise<number> {
  const query =
    dialect === 'postgres'
      ? sql<{ now: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as now`
      : sql<{ now: number }>`select (julianday('now') - 2440587.5) * 86400000.0 as now`;
  const row = (await query.execute(db)).rows[0];
  if (!row) throw new Error('the database did not tell its time');
  return Number(row.now);
}

/** True when the database answers a trivial query. */
export async function pingDatabase(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
