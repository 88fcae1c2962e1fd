// `npm run restore -- --from <file>`: puts back a copy made by `npm run backup`, into the
// database this environment names (DATABASE_URL, else DATA_DIR), with the server stopped.
// It refuses to overwrite a database that holds data unless given --force; with --force a
// SQLite file is kept beside as alerta.sqlite.before-restore-<time>.
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { dataStore, fail, openSqlite, option, runTool } from './data-store.mjs';

const argv = process.argv.slice(2);
const from = path.resolve(option(argv, 'from', 'usage: npm run restore -- --from <file> [--force]'));
const force = argv.includes('--force');
const store = dataStore();
if (!existsSync(from)) fail(`no backup at ${from}`);

/** Tables in the database's current schema (its migrations' own count as data too). */
async function tableCount(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select count(*)::int as n from information_schema.tables where table_schema = current_schema()',
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

try {
  if (store.kind === 'postgres') {
    if (!force && (await tableCount(store.url)) > 0) {
      fail(
        'the database named by DATABASE_URL already has tables: restore into an empty one, or add --force to replace them',
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
  } else {
    const source = openSqlite(from, { readonly: true, fileMustExist: true });
    try {
      const [check] = source.pragma('quick_check');
      if (check?.quick_check !== 'ok') fail(`${from} is not a sound SQLite database: ${JSON.stringify(check)}`);
      mkdirSync(store.dataDir, { recursive: true, mode: 0o700 });
      if (existsSync(store.file)) {
        if (!force) fail(`${store.file} exists: stop the server and add --force to replace it (it is kept beside)`);
        const aside = `${store.file}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
        renameSync(store.file, aside);
        console.log(`alerta: the database it replaces is kept at ${aside}`);
      }
      // The old file's write-ahead log would be replayed into the restored one.
      for (const suffix of ['-wal', '-shm']) rmSync(`${store.file}${suffix}`, { force: true });
      const partial = `${store.file}.restoring`;
      rmSync(partial, { force: true });
      await source.backup(partial);
      chmodSync(partial, 0o600);
      renameSync(partial, store.file);
    } finally {
      source.close();
    }
  }
} catch (error) {
  fail(`restore failed: ${error.message}`);
}
console.log(`alerta: ${from} restored into ${store.kind === 'postgres' ? 'the database of DATABASE_URL' : store.file}`);
