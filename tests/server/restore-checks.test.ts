import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLite } from '../../server/db/sqlite-driver.js';
import { type SeededUser, seedUser } from '../e2e/seed.js';
import { type RunningServer, startServer } from '../e2e/server.js';
import { closeAdmin, newStore, npmRun, type Store, sendAlert } from './backup-fixtures.js';
import { dbKind, dbLabel } from './helper.js';

// `npm run restore` checks before it touches anything: it refuses, even with --force, a database
// that a running server uses (the server's alerts would go into the database moved aside) and a
// copy that does not hold Alerta's schema at a migration this version knows.

const FUTURE_MIGRATION = '2099123101-from-the-future';

/** What the restore must leave alone: the SQLite folder's files and the database's bytes, or PostgreSQL's alerts and tables. */
async function fingerprint(store: Store): Promise<string> {
  if (dbKind === 'sqlite') {
    const file = path.join(store.dataDir, 'alerta.sqlite');
    const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
    return `${readdirSync(store.dataDir).sort().join(',')} ${digest}`;
  }
  const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
  await client.connect();
  try {
    const alerts = await client.query('select count(*)::int as n from alerts');
    const tables = await client.query(
      "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
    );
    return `${alerts.rows[0].n} alerts, ${tables.rows[0].n} tables`;
  } finally {
    await client.end();
  }
}

/** Runs one statement on the store's database (the SQLite file with no server on it). */
async function execute(store: Store, statement: string): Promise<void> {
  if (dbKind === 'sqlite') {
    const db = new SQLite(path.join(store.dataDir, 'alerta.sqlite'));
    db.exec(statement);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: store.env.DATABASE_URL });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}

describe(`npm run restore checks the database and the copy first (${dbLabel})`, () => {
  const stores: Store[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'alerta-restore-'));
  const backup = path.join(work, 'alerta.backup');
  let store: Store;
  let server: RunningServer | undefined;
  let user: SeededUser;

  beforeAll(async () => {
    store = await newStore();
    stores.push(store);
    server = await startServer({ ...store.env, BENCH_NO_RATE_LIMIT: '1' }, { dataDir: store.dataDir });
    user = await seedUser(server.url, { countdownSeconds: 0 });
    expect((await sendAlert(server.url, user.token)).status).toBe(201);
    const made = await npmRun('backup', ['--out', backup], store.env);
    expect(made.code, made.output).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await server?.stop({ keepData: true });
    for (const each of stores) await each.drop();
    await closeAdmin();
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses --force while a server uses the database, and the server keeps its alerts', async () => {
    if (!server) throw new Error('no server');
    const refused = await npmRun('restore', ['--from', backup, '--force'], store.env);
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toMatch(/in use/);
    const after = await sendAlert(server.url, user.token);
    expect(after.status).toBe(201);
    const { id } = (await after.json()) as { id: string };
    if (dbKind === 'sqlite') {
      expect(readdirSync(store.dataDir).filter((name) => /before-restore|restoring/.test(name))).toEqual([]);
    }

    await server.stop({ keepData: true });
    server = undefined;
    const restored = await npmRun('restore', ['--from', backup, '--force'], store.env);
    expect(restored.code, restored.output).toBe(0);
    // SQLite never opened the backup itself: nothing is left beside it.
    expect(readdirSync(work)).toEqual(['alerta.backup']);
    if (dbKind === 'sqlite') {
      // The file moved aside holds every alert the server acknowledged.
      const [aside] = readdirSync(store.dataDir).filter((name) => name.includes('before-restore'));
      const db = new SQLite(path.join(store.dataDir, aside ?? 'missing'), { readonly: true, fileMustExist: true });
      expect(db.prepare('select count(*) as n from alerts where id = ?').get(id)).toEqual({ n: 1 });
      db.close();
    }
  }, 60_000);

  it('refuses, with --force, a copy that is not Alerta’s or comes from a newer version, and touches nothing', async () => {
    const copies: [string, RegExp][] = [];
    const empty = path.join(work, 'empty.backup');
    writeFileSync(empty, '');
    const text = path.join(work, 'text.backup');
    writeFileSync(text, 'name,phone\nAna,+351912345678\n'.repeat(200));
    // Another application's database, and this one's with a migration this version does not know.
    const other = await newStore();
    const future = await newStore();
    stores.push(other, future);
    const otherCopy = path.join(work, 'other.backup');
    const futureCopy = path.join(work, 'future.backup');
    if (dbKind === 'sqlite') {
      await execute(other, 'create table notes (id integer primary key, body text)');
      copyFileSync(path.join(other.dataDir, 'alerta.sqlite'), otherCopy);
      copyFileSync(backup, path.join(future.dataDir, 'alerta.sqlite'));
      copies.push([empty, /does not hold Alerta's schema/], [text, /is not a SQLite database/]);
    } else {
      await execute(other, 'create table notes (id serial primary key, body text)');
      expect((await npmRun('backup', ['--out', otherCopy], other.env)).code).toBe(0);
      expect((await npmRun('restore', ['--from', backup], future.env)).code).toBe(0);
      copies.push([empty, /not a pg_dump archive/], [text, /not a pg_dump archive/]);
    }
    await execute(
      future,
      `insert into kysely_migration (name, timestamp) values ('${FUTURE_MIGRATION}', '2099-12-31')`,
    );
    expect((await npmRun('backup', ['--out', futureCopy], future.env)).code).toBe(0);
    copies.push(
      [otherCopy, /does not hold Alerta's schema/],
      [futureCopy, new RegExp(`newer version.*${FUTURE_MIGRATION}`)],
    );

    const before = await fingerprint(store);
    for (const [copy, message] of copies) {
      const refused = await npmRun('restore', ['--from', copy, '--force'], store.env);
      expect(refused.code, `${path.basename(copy)}: ${refused.output}`).toBe(1);
      expect(refused.output, path.basename(copy)).toMatch(message);
      expect(await fingerprint(store), path.basename(copy)).toBe(before);
    }
    // Each copy is left as it was, with nothing beside it.
    expect(existsSync(`${futureCopy}-wal`) || existsSync(`${futureCopy}-shm`)).toBe(false);
  }, 120_000);
});
