// What `npm run restore` checks before it touches a database: that the copy holds Alerta's schema
// at a migration this version knows, and that no server (or other client) is using the database
// it would replace. Restoring under a running server loses the alerts it acknowledges meanwhile.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openSqlite, runTool } from './data-store.mjs';

const root = path.resolve(import.meta.dirname, '..');
/** Where the migrations are: the sources in a checkout, the compiled server in a production install. */
const MIGRATION_DIRS = ['server/db/migrations', 'build/server/db/migrations'];

/** The migrations this version runs, by name (each is its file's name in server/db/migrations). */
export function knownMigrations(base = root) {
  const dir = MIGRATION_DIRS.map((entry) => path.join(base, entry)).find((entry) => existsSync(entry));
  if (!dir) throw new Error(`no migrations in ${base} (run \`npm run build\`)`);
  return new Set(
    readdirSync(dir)
      .filter((file) => /^\d+-.+\.(ts|js)$/.test(file))
      .map((file) => file.replace(/\.(ts|js)$/, '')),
  );
}

/**
 * Why the copy `from`, whose migration table lists `names` (undefined: it has none), is not one
 * this version can restore; undefined when it is.
 */
export function migrationsProblem(from, names, known = knownMigrations()) {
  if (!names || names.length === 0) return `${from} does not hold Alerta's schema (no migrations recorded)`;
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    return `${from} was made by a newer version of Alerta (migrations ${unknown.join(', ')} are unknown here): restore it with that version`;
  }
  return undefined;
}

/** The migrations recorded in an open SQLite database; undefined when it has no migration table. */
export function sqliteMigrations(db) {
  const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  if (!table) return undefined;
  return db
    .prepare('select name from kysely_migration')
    .all()
    .map((row) => row.name);
}

/** The migrations recorded in a pg_dump archive, read by pg_restore without restoring anything. */
export async function dumpMigrations(file) {
  let text;
  try {
    text = await runTool('pg_restore', ['--data-only', '--table=kysely_migration', '--file=-', file], {
      capture: true,
    });
  } catch (error) {
    throw new Error(`${file} is not a pg_dump archive pg_restore can read (${error.message})`);
  }
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^COPY \S*kysely_migration \(/.test(line));
  if (start < 0) return undefined;
  const end = lines.indexOf('\\.', start);
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) => line.split('\t')[0]);
}

/**
 * Takes the SQLite database `file` for itself, or throws when another connection (a running
 * server, a backup) has it open. A server keeps its WAL database open for as long as it runs, and
 * SQLite leaves a WAL database only when no other connection has it; leaving it also writes the
 * WAL into the file, so the file moved aside holds every committed write. The returned
 * connection holds an exclusive lock until it is closed.
 */
export function holdSqlite(file) {
  const db = openSqlite(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = DELETE');
    db.exec('begin exclusive; commit');
    return db;
  } catch (error) {
    db.close();
    if (error.code?.startsWith('SQLITE_BUSY')) {
      throw new Error(`${file} is in use (a server or another process has it open): stop the server, then restore`);
    }
    throw error;
  }
}

/** The one number `query` answers (as `n`) on the PostgreSQL database of `url`. */
async function countIn(url, query) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(query);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** Tables in the current schema of the PostgreSQL database of `url` (its migrations' own count as data too). */
export const tableCount = (url) =>
  countIn(url, 'select count(*)::int as n from information_schema.tables where table_schema = current_schema()');

/** Other sessions connected to the PostgreSQL database of `url` (a server keeps some open while it runs). */
export const otherSessions = (url) =>
  countIn(
    url,
    'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
