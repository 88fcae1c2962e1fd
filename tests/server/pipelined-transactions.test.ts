import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { benchAlert, seedOwners } from '../../bench/fixtures.js';
import { loadConfig } from '../../server/config.js';
import { migrateToLatest } from '../../server/db/index.js';
import type { Database } from '../../server/db/schema.js';
import { commitWithNext, executeTogether } from '../../server/db/sent-together.js';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { storeAlert } from '../../server/features/alerts/service.js';
import { ManualClock } from '../../server/lib/clock.js';
import type { SmsPort } from '../../server/providers/sms/port.js';
import { describeOn, freshDatabase } from './helper.js';
import { writesDuring } from './pg-writes.js';

describeOn('postgres')('transactions written with fewer round trips (PostgreSQL)', () => {
  let dataDir: string;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  /** A connection of its own: what other sessions see. */
  let other: pg.Client;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-pipelined-'));
    // One pooled connection: every transaction reuses the one the one before left.
    fresh = await freshDatabase(dataDir, 1);
    await sql`create table probe (id integer primary key)`.execute(fresh.handle.db);
    other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await other.connect();
    await other.query(`set search_path = ${fresh.handle.pgSchema}`);
  });
  afterAll(async () => {
    await other?.end();
    await fresh.handle.close();
    await fresh.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await sql`delete from probe`.execute(fresh.handle.db);
  });

  const db = () => fresh.handle.db as unknown as Kysely<{ probe: { id: number } }>;
  const insert = (trx: Kysely<{ probe: { id: number } }>, id: number) =>
    trx.insertInto('probe').values({ id }).execute();
  const seenByOthers = async () => (await other.query<{ id: number }>('select id from probe order by id')).rows;

  it('sends BEGIN, the statement marked last and its COMMIT in one write', async () => {
    const { writes } = await writesDuring(() =>
      db()
        .transaction()
        .execute(async (trx) => {
          await commitWithNext(trx);
          await insert(trx, 1);
        }),
    );
    expect(writes).toBe(1);
    expect(await seenByOthers()).toEqual([{ id: 1 }]);
  });

  it('sends BEGIN with the first statement, and the COMMIT of a transaction with no statement marked after the last', async () => {
    const { writes } = await writesDuring(() =>
      db()
        .transaction()
        .execute(async (trx) => {
          await insert(trx, 1);
          await insert(trx, 2);
        }),
    );
    // BEGIN with the first insert, the second, then COMMIT: four writes without the pipelining.
    expect(writes).toBe(3);
    expect(await seenByOthers()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('has committed when the statement marked last resolves', async () => {
    await db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 1);
        expect(await seenByOthers()).toEqual([]);
        await commitWithNext(trx);
        await insert(trx, 2);
        // Still inside the transaction's callback, and other sessions see both rows.
        expect(await seenByOthers()).toEqual([{ id: 1 }, { id: 2 }]);
      });
  });

  it('rolls the whole transaction back when the statement marked last fails, with that statement’s error', async () => {
    const failed = db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 1);
        await insert(trx, 2);
        await commitWithNext(trx);
        await insert(trx, 1);
      });
    await expect(failed).rejects.toMatchObject({ code: '23505' });
    expect(await seenByOthers()).toEqual([]);
    // The one pooled connection is left outside any transaction: the next one commits.
    await db()
      .transaction()
      .execute((trx) => insert(trx, 3));
    expect(await seenByOthers()).toEqual([{ id: 3 }]);
  });

  it('answers a last statement’s failure again at the commit, when the callback caught it', async () => {
    const caught = db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 1);
        await commitWithNext(trx);
        await insert(trx, 1).catch(() => 'never mind');
      });
    await expect(caught).rejects.toMatchObject({ code: '23505' });
    expect(await seenByOthers()).toEqual([]);
  });

  it('sends nothing of a last statement with a value pg cannot send: nothing commits', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const unsendable = db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 1);
        await commitWithNext(trx);
        await sql`insert into probe (id) values (${circular})`.execute(trx);
      });
    await expect(unsendable).rejects.toThrow(/circular/i);
    expect(await seenByOthers()).toEqual([]);
    await db()
      .transaction()
      .execute((trx) => insert(trx, 2));
    expect(await seenByOthers()).toEqual([{ id: 2 }]);
  });

  it('refuses a statement after the last one, which never runs', async () => {
    const late = db()
      .transaction()
      .execute(async (trx) => {
        await commitWithNext(trx);
        await insert(trx, 1);
        await insert(trx, 2);
      });
    await expect(late).rejects.toThrow('the transaction has ended');
    expect(await seenByOthers()).toEqual([{ id: 1 }]);
  });

  it('sends nothing for a transaction that ran no statement, and rolls back one whose callback throws', async () => {
    const { writes } = await writesDuring(() =>
      db()
        .transaction()
        .execute(async () => {}),
    );
    expect(writes).toBe(0);
    const thrown = db()
      .transaction()
      .execute(async (trx) => {
        await insert(trx, 1);
        throw new Error('changed my mind');
      });
    await expect(thrown).rejects.toThrow('changed my mind');
    expect(await seenByOthers()).toEqual([]);
    expect(await db().selectFrom('probe').select('id').execute()).toEqual([]);
  });

  it('answers a first statement that fails with its error and leaves the connection usable', async () => {
    const broken = db()
      .transaction()
      .execute((trx) => sql`select no_such_column from probe`.execute(trx));
    await expect(broken).rejects.toMatchObject({ code: '42703' });
    await db()
      .transaction()
      .execute((trx) => insert(trx, 1));
    expect(await seenByOthers()).toEqual([{ id: 1 }]);
  });

  it('begins with the isolation level asked for', async () => {
    const level = await db()
      .transaction()
      .setIsolationLevel('serializable')
      .execute(async (trx) => (await sql<{ level: string }>`show transaction_isolation`.execute(trx)).rows);
    expect(level).toEqual([{ transaction_isolation: 'serializable' }]);
  });

  it('sends queries together in one write, and one after a lock reads what the lock’s holder committed', async () => {
    const lock = sql`select pg_advisory_xact_lock(4242)`;
    const count = sql<{ n: number }>`select count(*)::int as n from probe`;
    // Another session holds the lock and writes a row it has not committed yet.
    await other.query('begin');
    await other.query('select pg_advisory_xact_lock(4242)');
    await other.query('insert into probe (id) values (7)');
    let answered = false;
    const counted = writesDuring(
      () =>
        db()
          .transaction()
          .execute((trx) => executeTogether<{ n: number }>(trx, [lock.compile(trx), count.compile(trx)])),
      other,
    ).then((outcome) => {
      answered = true;
      return outcome;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    await other.query('commit');
    const { writes, result } = await counted;
    // BEGIN, the lock and the count in one write, then COMMIT.
    expect(writes).toBe(2);
    expect(result[1]?.rows).toEqual([{ n: 1 }]);
  });

  it('refuses to mark a statement last outside a transaction', async () => {
    await expect(commitWithNext(db())).rejects.toThrow('outside a transaction');
  });

  it('stores an alert with the SMS budgets applied in two writes: BEGIN with the numbers’ locks and their count, then the alert with its COMMIT', async () => {
    const store = fresh.handle.db as Kysely<Database>;
    await migrateToLatest(store, fresh.handle.pgSchema);
    const [owner] = await seedOwners(store, { owners: 1, contacts: 2 });
    if (!owner) throw new Error('no owner');
    const contacts = await store
      .selectFrom('contacts')
      .select(['name as contact_name', 'phone_number'])
      .where('user_id', '=', owner.id)
      .execute();
    const clock = new ManualClock(Date.now());
    const sms: SmsPort = {
      name: 'outbox',
      send: () => Promise.reject(new Error('nothing is sent here')),
      onStatus() {},
    };
    const deps = {
      db: store,
      dialect: 'postgres' as const,
      config: loadConfig({ DATA_DIR: dataDir }),
      // Stopped: it lends no slot, so the SMS are stored queued and nothing else is written.
      dispatcher: createDispatcher({ db: store, dialect: 'postgres', sms, clock }),
    };
    const row = benchAlert(owner.id, 'Help.', clock.now());
    const deliveries = contacts.map((recipient) =>
      queuedDelivery({ alertId: row.id, recipient, body: 'Help.', now: clock.now() }),
    );
    const { writes, result } = await writesDuring(() => storeAlert(deps, row, deliveries, clock.now()));
    expect(result.created).toBe(true);
    // Five writes without the pipelining: BEGIN, the locks, the count, the alert, COMMIT.
    expect(writes).toBe(2);
    const stored = await other.query('select status from deliveries where alert_id = $1', [row.id]);
    expect(stored.rows).toEqual([{ status: 'queued' }, { status: 'queued' }]);
  });
});

describeOn('sqlite')('a statement marked last on SQLite', () => {
  let dataDir: string;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-marked-last-'));
    fresh = await freshDatabase(dataDir);
    await sql`create table probe (id integer primary key)`.execute(fresh.handle.db);
  });
  afterAll(async () => {
    await fresh.handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('changes nothing: the transaction commits when its callback returns, and rolls back when it throws', async () => {
    const db = fresh.handle.db as unknown as Kysely<{ probe: { id: number } }>;
    await db.transaction().execute(async (trx) => {
      await commitWithNext(trx);
      await trx.insertInto('probe').values({ id: 1 }).execute();
      // Later statements still belong to the transaction.
      await trx.insertInto('probe').values({ id: 2 }).execute();
    });
    const thrown = db.transaction().execute(async (trx) => {
      await commitWithNext(trx);
      await trx.insertInto('probe').values({ id: 3 }).execute();
      throw new Error('changed my mind');
    });
    await expect(thrown).rejects.toThrow('changed my mind');
    expect(await db.selectFrom('probe').select('id').orderBy('id').execute()).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
