import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { migrate, migrateToLatest } from '../../server/db/index.js';
import { migrations } from '../../server/db/migrations/index.js';
import { dbKind, dbLabel, freshDatabase } from './helper.js';

// A database from before the durable timers (the table of jobs was first called `timers`): a
// burst waiting for its summary and one whose sender died mid-send keep their summaries, as jobs.
it(`moves the e-mail bursts' due summaries onto timers (${dbLabel})`, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  const { handle, drop } = await freshDatabase(dataDir);
  const schema = handle.pgSchema;
  const migrateTo = (name: string) => migrate(handle.db, schema, (migrator) => migrator.migrateTo(name));
  try {
    await migrateTo('2026112504-live-responders');
    await sql`insert into users (id, username, email, password_hash, email_verified, language, alert_countdown_seconds, password_changed_at, created_at)
              values ('u1', 'ana', 'ana@example.com', 'x', 1, 'pt', 5, 0, 0)`.execute(handle.db);
    const burst = (id: string, address: string, values: string) =>
      sql`insert into mail_bursts (id, kind, address, user_id, last_mail_at, pending, pending_since, due_at, claimed_count, claimed_since, claimed_until, day_started_at, day_count)
          values (${id}, 'alert_receipt', ${address}, 'u1', ${sql.raw(values)})`.execute(handle.db);
    await burst('waiting', 'a@example.com', '1000, 3, 1100, 601000, 0, null, null, 1000, 1');
    await burst('mid-send', 'b@example.com', '2000, 0, null, null, 4, 1500, 62000, 1000, 2');
    await burst('idle', 'c@example.com', '3000, 0, null, null, 0, null, null, 1000, 1');
    await migrateToLatest(handle.db, schema);
    const timers = await handle.db
      .selectFrom('jobs')
      .select(['kind', 'subject', 'due_at', 'lease_until'])
      .orderBy('subject')
      .execute();
    expect(timers).toEqual([
      { kind: 'mail-summary', subject: 'mid-send', due_at: 62000, lease_until: null },
      { kind: 'mail-summary', subject: 'waiting', due_at: 601000, lease_until: null },
    ]);
    const kept = await handle.db
      .selectFrom('mail_bursts')
      .select(['id', 'pending', 'claimed_count'])
      .orderBy('id')
      .execute();
    expect(kept).toEqual([
      { id: 'idle', pending: 0, claimed_count: 0 },
      { id: 'mid-send', pending: 0, claimed_count: 4 },
      { id: 'waiting', pending: 3, claimed_count: 0 },
    ]);
    // And back: the due times return to the bursts.
    await migrateTo('2026112504-live-responders');
    const back = await sql<{
      id: string;
      due_at: number | null;
    }>`select id, due_at from mail_bursts order by id`.execute(handle.db);
    expect(back.rows.map((row) => [row.id, row.due_at === null ? null : Number(row.due_at)])).toEqual([
      ['idle', null],
      ['mid-send', 62000],
      ['waiting', 601000],
    ]);
  } finally {
    await handle.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// The job engine's table called for what it holds: every job kept; on PostgreSQL a process of
// the version before, still running during a rolling upgrade, goes on through the view `timers`
// (its enqueue, its claim, its removal); back down, the table is `timers` again.
it(`renames the timers to jobs, keeping every job and the older processes' statements (${dbLabel})`, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  const { handle, drop } = await freshDatabase(dataDir);
  const schema = handle.pgSchema;
  const migrateTo = (name: string) => migrate(handle.db, schema, (migrator) => migrator.migrateTo(name));
  const older = (statement: string) => sql.raw(statement).execute(handle.db);
  const jobs = async (table: string) =>
    (await older(`select kind, subject, due_at, lease_token from ${table} order by subject`)).rows.map((row) => ({
      ...(row as object),
      due_at: Number((row as { due_at: unknown }).due_at),
    }));
  try {
    await migrateTo('2026120704-responder-channel');
    await older(
      `insert into timers (id, kind, subject, due_at, attempts, created_at) values ('j1', 'checkin', 'c1', 1000, 0, 0)`,
    );
    await migrateToLatest(handle.db, schema);
    expect(await jobs('jobs')).toEqual([{ kind: 'checkin', subject: 'c1', due_at: 1000, lease_token: null }]);
    if (dbKind === 'postgres') {
      await older(`insert into timers (id, kind, subject, due_at, attempts, created_at) values ('j2', 'checkin', 'c2', 500, 0, 0)
                   on conflict (kind, subject) do update set due_at = excluded.due_at, attempts = 0`);
      const claimed =
        await older(`with due_0 as materialized (select id, due_at from timers where kind = 'checkin' and due_at <= 2000 order by due_at limit 1 for update skip locked)
                                   update timers set lease_token = 'older', attempts = attempts + 1 where id in (select id from due_0) returning subject`);
      expect(claimed.rows).toEqual([{ subject: 'c2' }]);
      await older(`delete from timers where subject = 'c2' and lease_token = 'older'`);
      expect(await jobs('jobs')).toEqual([{ kind: 'checkin', subject: 'c1', due_at: 1000, lease_token: null }]);
    }
    await migrateTo('2026120704-responder-channel');
    expect(await jobs('timers')).toEqual([{ kind: 'checkin', subject: 'c1', due_at: 1000, lease_token: null }]);
  } finally {
    await handle.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// Kysely reads every schema's catalog before it takes its lock: a server starting while
// another process alters its own tables must still start. PostgreSQL only: SQLite has one
// database per file.
const onPostgres = dbKind === 'postgres' ? it : (_name: string, _body: () => Promise<void>) => undefined;
onPostgres('migrates while tables of another schema are altered meanwhile (PostgreSQL)', async () => {
  const other = `t_churn_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${other}; create table ${other}.churn (c integer)`);
  // A burst of renames, as another process's migrations would make, then quiet.
  let churning = true;
  const churn = (async () => {
    for (let n = 0; n < 600; n++) {
      const [from, to] = n % 2 === 0 ? ['c', 'd'] : ['d', 'c'];
      await admin.query(`alter table ${other}.churn rename column ${from} to ${to}`);
    }
    churning = false;
  })();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  let rounds = 0;
  try {
    while (churning || rounds < 2) {
      rounds++;
      const { handle, drop } = await freshDatabase(dataDir);
      try {
        await migrateToLatest(handle.db, handle.pgSchema);
        const ran = await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db);
        expect(ran.rows.map((row) => row.name).sort()).toEqual(Object.keys(migrations).sort());
      } finally {
        await handle.close();
        await drop();
      }
    }
  } finally {
    await churn;
    await admin.query(`drop schema ${other} cascade`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
