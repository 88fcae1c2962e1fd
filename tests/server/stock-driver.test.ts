import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { alertRow, ownerWithContacts } from './alerts-fixtures.js';
import { sendAlert, subscriber } from './faults/world.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

// The databases through their stock drivers (better-sqlite3 under Kysely's SqliteDialect,
// pg.Pool under its PostgresDialect): a transaction means the same on both, and nothing kept
// on a connection breaks when a migration changes a table under a running server.
describe(`the stock drivers (${dbLabel})`, () => {
  const t = suiteApp();
  const stored = (id: string) => t.app.db.selectFrom('alerts').select('id').where('id', '=', id).execute();

  it('commits a transaction when its callback resolves, and stores nothing when it throws after its writes', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const kept = alertRow(owner.user.id, { created_at: t.clock.now() });
    await t.app.db.transaction().execute(async (trx) => {
      await insertAlert(trx, kept, []);
    });
    expect(await stored(kept.id)).toEqual([{ id: kept.id }]);

    const dropped = alertRow(owner.user.id, { created_at: t.clock.now(), idempotency_key: randomUUID() });
    await expect(
      t.app.db.transaction().execute(async (trx) => {
        await insertAlert(trx, dropped, []);
        throw new Error('a check after the write refuses it');
      }),
    ).rejects.toThrow('a check after the write refuses it');
    expect(await stored(dropped.id)).toEqual([]);
  });

  it('answers every alert 201 from two server processes while a migration adds a column between them', async () => {
    const other = await secondServer(t);
    await other.app.ready();
    try {
      const owners = await Promise.all([subscriber(t.app, 2), subscriber(t.app, 2)]);
      const statuses: number[] = [];
      let migrated = false;
      const stream = async (app: typeof t.app, token: string) => {
        // Alerts before, during and after the migration, each process with its own connections.
        for (let i = 0; i < 15 || !migrated; i += 1) statuses.push((await sendAlert(app, token)).statusCode);
        for (let i = 0; i < 5; i += 1) statuses.push((await sendAlert(app, token)).statusCode);
      };
      const streams = [stream(t.app, owners[0].token), stream(other.app, owners[1].token)];
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sql`alter table alerts add column migrated_note text`.execute(t.database.db);
      await sql`alter table deliveries add column migrated_note text`.execute(t.database.db);
      migrated = true;
      await Promise.all(streams);
      expect(statuses.length).toBeGreaterThanOrEqual(40);
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
    } finally {
      await other.close();
      await sql`alter table deliveries drop column migrated_note`.execute(t.database.db);
      await sql`alter table alerts drop column migrated_note`.execute(t.database.db);
    }
  });
});
