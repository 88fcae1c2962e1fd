// `npm run backup -- --out <file>`: a consistent copy of the database the server uses, taken
// while it runs. SQLite (DATA_DIR): SQLite's online backup API, which copies a snapshot without
// stopping writers. PostgreSQL (DATABASE_URL): pg_dump in its custom format. `npm run restore`
// puts a copy back.
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { dataStore, fail, KEPT_SECRETS, openSqlite, option, runTool } from './data-store.mjs';

const out = path.resolve(option(process.argv.slice(2), 'out', 'usage: npm run backup -- --out <file>'));
const store = dataStore();
mkdirSync(path.dirname(out), { recursive: true });
// Written beside the target and renamed once complete: a failed backup never leaves a file that looks whole.
const partial = `${out}.partial`;
rmSync(partial, { force: true });

try {
  if (store.kind === 'postgres') {
    await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${partial}`, store.url]);
  } else {
    if (!existsSync(store.file)) fail(`no database at ${store.file} (DATA_DIR=${store.dataDir})`);
    const db = openSqlite(store.file, { fileMustExist: true });
    try {
      // All remaining pages in one step, under one read transaction: a write by the server
      // between two steps would make SQLite start the copy again, and again under a steady stream.
      await db.backup(partial, { progress: () => 1_000_000 });
    } finally {
      db.close();
    }
  }
  // The copy holds everything the database does (password hashes, phone numbers): owner only.
  chmodSync(partial, 0o600);
  renameSync(partial, out);
} catch (error) {
  rmSync(partial, { force: true });
  fail(`backup failed: ${error.message}`);
}

console.log(`alerta: backup of ${store.kind === 'postgres' ? 'PostgreSQL' : store.file} written to ${out}`);
if (store.kind === 'sqlite') {
  const kept = KEPT_SECRETS.filter((name) => existsSync(path.join(store.dataDir, name)));
  if (kept.length > 0) {
    console.log(
      `alerta: ${kept.join(' and ')} in ${store.dataDir} are not in the backup: copy them once (they do not change), or set JWT_SECRET and VAPID_* instead`,
    );
  }
}
