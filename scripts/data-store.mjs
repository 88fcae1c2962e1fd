// Where the server keeps its data, read from the environment as server/config.ts reads it
// (DATABASE_URL, else SQLite in DATA_DIR), and the tools `npm run backup` and `npm run restore`
// share: argument parsing, pg_dump/pg_restore, and SQLite through the same better-sqlite3 build
// the server loads (server/db/sqlite-driver.ts).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The file name server/db/index.ts gives the SQLite database inside DATA_DIR. */
export const SQLITE_FILE = 'alerta.sqlite';
/** Secrets the server generates into DATA_DIR when they are not configured (not part of a backup). */
export const KEPT_SECRETS = ['jwt-secret', 'vapid.json'];

/** The database the server would open with this environment (empty strings count as unset). */
export function dataStore(env = process.env) {
  const url = env.DATABASE_URL?.trim();
  if (url) return { kind: 'postgres', url };
  const dataDir = path.resolve(env.DATA_DIR?.trim() || './data');
  return { kind: 'sqlite', dataDir, file: path.join(dataDir, SQLITE_FILE) };
}

/** The value after `--name` (or in `--name=value`); exits with `usage` when it is missing. */
export function option(argv, name, usage) {
  const at = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  const value = at < 0 ? undefined : argv[at].includes('=') ? argv[at].split('=').slice(1).join('=') : argv[at + 1];
  if (!value || value.startsWith('--')) fail(usage);
  return value;
}

export function fail(message) {
  console.error(`alerta: ${message}`);
  process.exit(1);
}

/** better-sqlite3 for the running Node: 13 from Node 22 on, 12 (the `better-sqlite3-node20` alias) on 20. */
export function openSqlite(file, options) {
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  const SQLite = require(major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20');
  return new SQLite(file, options);
}

/**
 * Runs a PostgreSQL client tool (pg_dump, pg_restore), its output passed through, or with
 * `capture` collected and resolved with; rejects when it fails.
 */
export function runTool(command, args, { capture = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${command} is not installed (Debian: apt-get install postgresql-client; the container image has none: run it in the database's own container, docs/OPERATIONS.md)`,
            )
          : error,
      ),
    );
    child.on('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(chunks).toString('utf8'))
        : reject(new Error(`${command} exited with code ${code}`)),
    );
  });
}
