// `npm run restore -- --from <file>`: puts back a copy made by `npm run backup`, into the
// database this environment names (DATABASE_URL, else DATA_DIR), with the server stopped.
// Before touching anything it checks that the copy holds Alerta's schema at a migration this
// version knows, and refuses a database that a server (or another client) is using. It refuses
// to overwrite a database that holds data unless given --force; with --force a SQLite file is
// kept beside as alerta.sqlite.before-restore-<time>.
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { dataStore, fail, openSqlite, option, runTool } from './data-store.mjs';
import {
  dumpMigrations,
  holdSqlite,
  migrationsProblem,
  otherSessions,
  sqliteMigrations,
  tableCount,
} from './restore-checks.mjs';

const argv = process.argv.slice(2);
const from = path.resolve(option(argv, 'from', 'usage: npm run restore -- --from <file> [--force]'));
const force = argv.includes('--force');
const store = dataStore();
if (!existsSync(from)) fail(`no backup at ${from}`);

/** Fails unless the copy `from`, whose migration table lists `names`, is one this version can restore. */
function checkMigrations(names) {
  const problem = migrationsProblem(from, names);
  if (problem) fail(problem);
}

async function restorePostgres() {
  checkMigrations(await dumpMigrations(from));
  if (!force && (await tableCount(store.url)) > 0) {
    fail(
      'the database named by DATABASE_URL already has tables: restore into an empty one, or add --force to replace them',
    );
  }
  const sessions = await otherSessions(store.url);
  if (sessions > 0) {
    fail(
      `the database named by DATABASE_URL is in use (${sessions} other session${sessions === 1 ? '' : 's'}): stop every server using it, then restore`,
    );
  }
  await runTool('pg_restore', [
    '--clean',
    '--if-exists',
    '--no-owner',
    '--no-privileges',
    '--single-transaction',
    '--exit-on-error',
    `--dbname=${store.url}`,
    from,
  ]);
}

/**
 * Checks a copy of the backup beside the database (the backup itself is never opened by SQLite,
 * which would leave -wal and -shm files beside it), then swaps it in while holding the old file.
 */
function restoreSqlite() {
  mkdirSync(store.dataDir, { recursive: true, mode: 0o700 });
  const partial = `${store.file}.restoring`;
  const removePartial = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
  };
  removePartial();
  copyFileSync(from, partial);
  chmodSync(partial, 0o600);
  let held;
  try {
    const copy = openSqlite(partial, { fileMustExist: true });
    try {
      const [check] = copy.pragma('quick_check');
      if (check?.quick_check !== 'ok')
        throw new Error(`${from} is not a sound SQLite database: ${JSON.stringify(check)}`);
      const problem = migrationsProblem(from, sqliteMigrations(copy));
      if (problem) throw new Error(problem);
    } catch (error) {
      throw new Error(error.code === 'SQLITE_NOTADB' ? `${from} is not a SQLite database` : error.message);
    } finally {
      copy.close();
    }
    if (existsSync(store.file)) {
      if (!force)
        throw new Error(`${store.file} exists: stop the server and add --force to replace it (it is kept beside)`);
      held = holdSqlite(store.file);
      const aside = `${store.file}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(store.file, aside);
      console.log(`alerta: the database it replaces is kept at ${aside}`);
    }
    // Left by a server that stopped without removing them: they would be replayed into the restored file.
    for (const suffix of ['-wal', '-shm']) rmSync(`${store.file}${suffix}`, { force: true });
    renameSync(partial, store.file);
  } catch (error) {
    removePartial();
    fail(error.message);
  } finally {
    held?.close();
  }
}

try {
  if (store.kind === 'postgres') await restorePostgres();
  else restoreSqlite();
} catch (error) {
  fail(`restore failed: ${error.message}`);
}
console.log(`alerta: ${from} restored into ${store.kind === 'postgres' ? 'the database of DATABASE_URL' : store.file}`);
