import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce } from '../../server/db/compiled-once.js';
import { createUser, dbLabel, describeOn, freshDatabase, suiteApp } from './helper.js';
import { countingQueries } from './statements-seen.js';

describe(`a query compiled once (${dbLabel})`, () => {
  const t = suiteApp();

  it('runs with each call’s own values, the same text every time', async () => {
    const [ana, rui] = [await createUser(t.app), await createUser(t.app)];
    let built = 0;
    const byUsername = compiledOnce<{ username: string; after: number }, { id: string }>((db, value) => {
      built += 1;
      return db
        .selectFrom('users')
        .select('id')
        .where('username', '=', value('username'))
        .where('created_at', '>', value('after'));
    });
    const run = (username: string) => byUsername(t.app.db, t.app.dialect, { username, after: 0 });
    expect(await run(ana.user.username)).toEqual([{ id: ana.user.id }]);
    expect(await run(rui.user.username)).toEqual([{ id: rui.user.id }]);
    expect(await byUsername(t.app.db, t.app.dialect, { username: rui.user.username, after: 9e15 })).toEqual([]);
    expect(await run('nobody')).toEqual([]);
    expect(built).toBe(1);
  });

  it('is built again for each run on a database with plugins, which see every query', async () => {
    const user = await createUser(t.app);
    let built = 0;
    const byId = compiledOnce<{ id: string }, { id: string }>((db, value) => {
      built += 1;
      return db.selectFrom('users').select('id').where('id', '=', value('id'));
    });
    expect(await byId(t.app.db, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    const { db: watched, counted } = countingQueries(t.app.db);
    expect(await byId(watched, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    expect(await byId(watched, t.app.dialect, { id: 'nobody' })).toEqual([]);
    expect(counted.seen).toBe(2);
    expect(await byId(t.app.db, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    expect(built).toBe(3);
  });

  it('refuses a build whose named value is not sent as a parameter', async () => {
    const lost = compiledOnce<{ id: string }, { id: string }>((db, value) => {
      value('id');
      return db.selectFrom('users').select('id').limit(1);
    });
    await expect(lost(t.app.db, t.app.dialect, { id: 'x' })).rejects.toThrow('id not sent as a parameter');
  });
});

// PostgreSQL's prepared statements (server/db/prepared-statements.ts); SQLite keeps its own (sqlite-statements.ts).
describeOn('postgres')('statements sent again are prepared on their connection (PostgreSQL)', () => {
  let dataDir: string;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-prepared-'));
    fresh = await freshDatabase(dataDir, 1);
    await sql`create table probe (id integer primary key)`.execute(fresh.handle.db);
    await sql`insert into probe (id) values (1), (2)`.execute(fresh.handle.db);
  });
  afterAll(async () => {
    await fresh.handle.close();
    await fresh.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const db = () => fresh.handle.db;
  const probe = (id: number) => sql<{ id: number }>`select * from probe where id = ${id}`.execute(db());
  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db())).rows.map(
      (row) => row.statement,
    );

  it('parses a text once it is sent again, and answers with each call’s own values', async () => {
    expect((await probe(1)).rows).toEqual([{ id: 1 }]);
    expect((await prepared()).some((text) => text.includes('from probe'))).toBe(false);
    expect((await probe(2)).rows).toEqual([{ id: 2 }]);
    expect((await probe(3)).rows).toEqual([]);
    expect((await prepared()).filter((text) => text.includes('from probe'))).toHaveLength(1);
  });

  it('goes on unprepared on a connection whose statement no longer fits the table', async () => {
    await probe(1);
    await sql`alter table probe add column note text`.execute(db());
    // PostgreSQL refuses the stale plan once ("cached plan must not change result type"), then the
    // connection sends its statements as before and they see the new column.
    await expect(probe(1)).rejects.toMatchObject({ code: '0A000' });
    expect((await probe(1)).rows).toEqual([{ id: 1, note: null }]);
    expect((await probe(2)).rows).toEqual([{ id: 2, note: null }]);
  });
});
