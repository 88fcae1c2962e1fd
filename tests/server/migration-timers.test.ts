import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { expect, it } from 'vitest';
import { migrations } from '../../server/db/migrations/index.js';
import { dbLabel, freshDatabase } from './helper.js';

// A database from before the durable timers: a burst waiting for its summary and one whose
// sender died mid-send keep their summaries, now on timers.
it(`moves the e-mail bursts' due summaries onto timers (${dbLabel})`, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migration-'));
  const { handle, drop } = await freshDatabase(dataDir);
  const schema = handle.pgSchema;
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  try {
    expect((await migrator.migrateTo('2026112504-live-responders')).error).toBeUndefined();
    await sql`insert into users (id, username, email, password_hash, email_verified, language, alert_countdown_seconds, password_changed_at, created_at)
              values ('u1', 'ana', 'ana@example.com', 'x', 1, 'pt', 5, 0, 0)`.execute(handle.db);
    const burst = (id: string, address: string, values: string) =>
      sql`insert into mail_bursts (id, kind, address, user_id, last_mail_at, pending, pending_since, due_at, claimed_count, claimed_since, claimed_until, day_started_at, day_count)
          values (${id}, 'alert_receipt', ${address}, 'u1', ${sql.raw(values)})`.execute(handle.db);
    await burst('waiting', 'a@example.com', '1000, 3, 1100, 601000, 0, null, null, 1000, 1');
    await burst('mid-send', 'b@example.com', '2000, 0, null, null, 4, 1500, 62000, 1000, 2');
    await burst('idle', 'c@example.com', '3000, 0, null, null, 0, null, null, 1000, 1');
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const timers = await handle.db
      .selectFrom('timers')
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
    expect((await migrator.migrateTo('2026112504-live-responders')).error).toBeUndefined();
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
