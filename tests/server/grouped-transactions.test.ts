import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../server/db/errors.js';
import { inGroupedTransaction } from '../../server/db/grouped-transactions.js';
import { type DatabaseHandle, openDatabase } from '../../server/db/index.js';
import type { Database } from '../../server/db/schema.js';

// The writes of one turn of the event loop, committed together on SQLite (a file database, as
// the server opens it): each piece alone in its savepoint, each answered after the commit.

describe('writes queued in the same turn share one commit', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-grouped-'));
  let handle: DatabaseHandle;
  let db: Kysely<Database>;
  beforeAll(() => {
    handle = openDatabase({ dataDir: dir });
    db = handle.db;
  });
  afterAll(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await sql`drop table if exists children`.execute(db);
    await sql`drop table if exists pieces`.execute(db);
    await sql`create table pieces (id text primary key)`.execute(db);
    await sql`create table children (id text primary key, piece_id text not null references pieces (id))`.execute(db);
  });

  const rows = async () =>
    (await sql<{ id: string }>`select id from pieces order by id`.execute(db)).rows.map((row) => row.id);
  /** A piece that writes `id` and says which transaction it ran in. */
  const writes = (id: string) => async (trx: Transaction<Database>) => {
    await sql`insert into pieces (id) values (${id})`.execute(trx);
    return trx;
  };

  it('runs the pieces of one turn in one transaction, each answered once it has committed', async () => {
    const answered: string[] = [];
    const pieces = ['a', 'b', 'c'].map((id) =>
      inGroupedTransaction(db, writes(id)).then((trx) => {
        answered.push(id);
        return trx;
      }),
    );
    const transactions = await Promise.all(pieces);
    expect(new Set(transactions).size).toBe(1);
    expect(answered).toEqual(['a', 'b', 'c']);
    expect(await rows()).toEqual(['a', 'b', 'c']);
  });

  it('rolls back and rejects a piece that throws, alone: the others commit', async () => {
    const results = await Promise.allSettled([
      inGroupedTransaction(db, writes('a')),
      inGroupedTransaction(db, async (trx) => {
        await writes('b')(trx);
        throw new Error('this piece fails after writing');
      }),
      // The same key as the first piece: the unique index refuses it, as it would a second
      // alert with an idempotency key already used.
      inGroupedTransaction(db, writes('a')),
      inGroupedTransaction(db, writes('c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(results[1]?.status === 'rejected' && (results[1].reason as Error).message).toBe(
      'this piece fails after writing',
    );
    expect(results[2]?.status === 'rejected' && isUniqueViolation(results[2].reason)).toBe(true);
    expect(await rows()).toEqual(['a', 'c']);
  });

  it('rejects every piece when the commit itself fails, and none of their writes stays', async () => {
    const results = await Promise.allSettled([
      inGroupedTransaction(db, writes('a')),
      inGroupedTransaction(db, async (trx) => {
        // A foreign key checked only at commit, broken: the commit fails.
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await sql`insert into children (id, piece_id) values ('orphan', 'no-such-piece')`.execute(trx);
      }),
      inGroupedTransaction(db, writes('b')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String(results[0]?.status === 'rejected' && results[0].reason)).toContain('FOREIGN KEY');
    expect(await rows()).toEqual([]);
    // The next turn's writes are not held up by the failed commit.
    await inGroupedTransaction(db, writes('c'));
    expect(await rows()).toEqual(['c']);
  });

  it('answers every piece with the cause when SQLite has rolled the whole transaction back itself', async () => {
    const results = await Promise.allSettled([
      inGroupedTransaction(db, writes('a')),
      inGroupedTransaction(db, async (trx) => {
        await writes('b')(trx);
        // As SQLite does on a full disk or an I/O error: the transaction is gone, savepoints and all.
        await sql`rollback`.execute(trx);
        throw new Error('database or disk is full');
      }),
      inGroupedTransaction(db, writes('c')),
    ]);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'fulfilled'))).toEqual([
      'Error: database or disk is full',
      'Error: database or disk is full',
      'Error: database or disk is full',
    ]);
    expect(await rows()).toEqual([]);
    await inGroupedTransaction(db, writes('d'));
    expect(await rows()).toEqual(['d']);
  });

  it('commits what is queued while a commit is under way in the next one, and cuts a long queue', async () => {
    let late: Promise<Transaction<Database>> | undefined;
    const first = await inGroupedTransaction(db, async (trx) => {
      await writes('a')(trx);
      // Queued while this transaction runs (a request arriving meanwhile): never waits on it.
      late = inGroupedTransaction(db, writes('b'));
      return trx;
    });
    expect(late).toBeDefined();
    expect(await late).not.toBe(first);
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => inGroupedTransaction(db, writes(`m${String(i).padStart(2, '0')}`))),
    );
    expect(new Set(many).size).toBe(2);
    expect(await rows()).toHaveLength(42);
  });
});
