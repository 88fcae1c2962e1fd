import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedOwners } from '../../bench/fixtures.js';
import { loadConfig } from '../../server/config.js';
import { migrateToLatest } from '../../server/db/index.js';
import type { Database } from '../../server/db/schema.js';
import { MOST_PER_WRITE, withTurn } from '../../server/db/sent-together.js';
import { alertingOwner } from '../../server/features/alerts/alerting-owner.js';
import { ManualClock } from '../../server/lib/clock.js';
import { dbLabel, describeOn, freshDatabase } from './helper.js';
import { writesDuring } from './pg-writes.js';

/** A fresh database with a `probe` table of ids 1 to 40. */
function probeDatabase(prefix: string) {
  const state = {} as { dataDir: string; fresh: Awaited<ReturnType<typeof freshDatabase>> };
  beforeAll(async () => {
    state.dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
    state.fresh = await freshDatabase(state.dataDir, 3);
    await sql`create table probe (id integer primary key)`.execute(state.fresh.handle.db);
    const rows = Array.from({ length: 40 }, (_, i) => sql`(${i + 1})`);
    await sql`insert into probe (id) values ${sql.join(rows)}`.execute(state.fresh.handle.db);
  });
  afterAll(async () => {
    await state.fresh.handle.close();
    await state.fresh.drop();
    rmSync(state.dataDir, { recursive: true, force: true });
  });
  return state;
}

/** The read of one probe row by id, as a statement of its own. */
const probeRead = (db: Kysely<Database>, id: number) =>
  sql<{ id: number }>`select id from probe where id = ${id}`.compile(db);

describeOn('postgres')('statements of one turn sent together (PostgreSQL)', () => {
  const state = probeDatabase('alerta-turn-');
  const db = () => state.fresh.handle.db;

  it('sends the reads of one turn in one write, each answered with its own rows', async () => {
    const ids = [3, 1, 4, 15, 9];
    const { writes, result } = await writesDuring(() =>
      Promise.all(ids.map((id) => withTurn(db(), probeRead(db(), id)))),
    );
    expect(result.map((answer) => answer.rows)).toEqual(ids.map((id) => [{ id }]));
    // One write per read without it.
    expect(writes).toBe(1);
  });

  it('fails a statement that fails alone', async () => {
    const answers = await Promise.allSettled([
      withTurn(db(), probeRead(db(), 2)),
      withTurn(db(), sql`select no_such_column from probe`.compile(db())),
      withTurn(db(), probeRead(db(), 5)),
    ]);
    expect(answers[0]).toMatchObject({ status: 'fulfilled', value: { rows: [{ id: 2 }] } });
    expect(answers[1]).toMatchObject({ status: 'rejected', reason: { code: '42703' } });
    expect(answers[2]).toMatchObject({ status: 'fulfilled', value: { rows: [{ id: 5 }] } });
  });

  it(`sends at most ${MOST_PER_WRITE} in one write, and the turns after it anew`, async () => {
    const ids = Array.from({ length: MOST_PER_WRITE * 2 + 1 }, (_, i) => i + 1);
    const readAll = () => Promise.all(ids.map((id) => withTurn(db(), probeRead(db(), id))));
    // Once first, so the pool has the three connections open (opening one is a write too).
    await readAll();
    const { writes, result } = await writesDuring(readAll);
    expect(result.map((answer) => answer.rows[0]?.id)).toEqual(ids);
    expect(writes).toBe(3);
    const later = await writesDuring(async () => {
      await withTurn(db(), probeRead(db(), 1));
      return withTurn(db(), probeRead(db(), 2));
    });
    expect(later.writes).toBe(2);
    expect(later.result.rows).toEqual([{ id: 2 }]);
  });

  it('runs at once, in the transaction, when given one', async () => {
    const seen = await db()
      .transaction()
      .execute(async (trx) => {
        await sql`delete from probe where id = 40`.execute(trx);
        // The transaction's own view: the row it deleted is gone for it alone.
        return (await withTurn(trx, probeRead(trx, 40))).rows;
      });
    expect(seen).toEqual([]);
    await sql`insert into probe (id) values (40) on conflict do nothing`.execute(db());
  });

  it('sends the owner reads of alerts pressed in one turn together', async () => {
    const store = db();
    await migrateToLatest(store, state.fresh.handle.pgSchema);
    const owners = await seedOwners(store, { owners: 3, contacts: 2 });
    const deps = {
      db: store,
      dialect: 'postgres' as const,
      clock: new ManualClock(Date.now()),
      config: loadConfig({ DATA_DIR: state.dataDir }),
    };
    const { writes, result } = await writesDuring(() =>
      Promise.all(owners.map((owner) => alertingOwner(deps, owner.token, 'a-new-key'))),
    );
    expect(result.map((owner) => [owner.user.id, owner.contacts.length, owner.replay])).toEqual(
      owners.map((owner) => [owner.id, 2, undefined]),
    );
    expect(writes).toBe(1);
  });
});

describeOn('sqlite')(`statements of one turn (${dbLabel})`, () => {
  const state = probeDatabase('alerta-turn-sqlite-');

  it('are each run and answered on their own', async () => {
    const db = state.fresh.handle.db;
    const answers = await Promise.allSettled([
      withTurn(db, probeRead(db, 7)),
      withTurn(db, sql`select no_such_column from probe`.compile(db)),
      withTurn(db, probeRead(db, 8)),
    ]);
    expect(answers[0]).toMatchObject({ status: 'fulfilled', value: { rows: [{ id: 7 }] } });
    expect(answers[1]).toMatchObject({ status: 'rejected' });
    expect(answers[2]).toMatchObject({ status: 'fulfilled', value: { rows: [{ id: 8 }] } });
  });
});
