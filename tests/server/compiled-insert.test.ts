import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledInsert } from '../../server/db/compiled-once.js';
import type { Database } from '../../server/db/schema.js';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import type { JobKind } from '../../server/jobs/index.js';
import { alertRow } from './alerts-fixtures.js';
import { createUser, dbLabel, suiteApp } from './helper.js';
import { countingBuilds, countingQueries } from './statements-seen.js';

/** The database, counting the inserts started on it with Kysely's builder. */
const countingInserts = (db: Kysely<Database>) => countingBuilds(db, ['insertInto']);

const timer = (subject: string, dueAt: number, extra: { lease_until?: number | null } = {}) => ({
  id: `timer-${subject}`,
  kind: 'probe',
  subject,
  due_at: dueAt,
  attempts: 0,
  created_at: 1,
  ...extra,
});

describe(`an insert built once per shape (${dbLabel})`, () => {
  const t = suiteApp();

  it('writes each run’s own rows, building its statement once for rows of the same columns and count', async () => {
    const { db, counted } = countingInserts(t.app.db);
    const insert = compiledInsert('jobs', (query) => query.returning(['subject', 'due_at']));
    expect(await insert(db, [timer('a', 10)])).toEqual([{ subject: 'a', due_at: 10 }]);
    expect(await insert(db, [timer('b', 20)])).toEqual([{ subject: 'b', due_at: 20 }]);
    expect(counted.built).toBe(1);
    // Two rows are another shape; then built once too.
    expect(await insert(db, [timer('c', 30), timer('d', 40)])).toEqual([
      { subject: 'c', due_at: 30 },
      { subject: 'd', due_at: 40 },
    ]);
    expect(await insert(db, [timer('e', 50), timer('f', 60)])).toHaveLength(2);
    expect(counted.built).toBe(2);
    // Another column set (a value left undefined is no column) is a shape of its own.
    await insert(db, [timer('g', 70, { lease_until: 5 })]);
    await insert(db, [timer('h', 80, { lease_until: undefined })]);
    expect(counted.built).toBe(3);
    // A value written into the text (an expression, which the row types refuse) is built every time.
    await insert(db, [{ ...timer('m', 130), attempts: sql<number>`1 + 1` as unknown as number }]);
    await insert(db, [{ ...timer('n', 140), attempts: sql<number>`2 + 2` as unknown as number }]);
    expect(counted.built).toBe(5);
    // Rows that name different columns are built as Kysely builds them, every time.
    await insert(db, [timer('i', 90), timer('j', 100, { lease_until: 7 })]);
    await insert(db, [timer('k', 110), timer('l', 120, { lease_until: 8 })]);
    expect(counted.built).toBe(7);
    const stored = await t.app.db
      .selectFrom('jobs')
      .select(['subject', 'due_at', 'lease_until', 'attempts'])
      .where('kind', '=', 'probe')
      .orderBy('subject')
      .execute();
    const attempts = new Map(stored.map((row) => [row.subject, Number(row.attempts)]));
    expect([attempts.get('m'), attempts.get('n'), attempts.get('a')]).toEqual([2, 4, 0]);
    expect(
      stored
        .filter((row) => !['m', 'n'].includes(row.subject))
        .map((row) => [row.subject, Number(row.due_at), row.lease_until && Number(row.lease_until)]),
    ).toEqual([
      ['a', 10, null],
      ['b', 20, null],
      ['c', 30, null],
      ['d', 40, null],
      ['e', 50, null],
      ['f', 60, null],
      ['g', 70, 5],
      ['h', 80, null],
      ['i', 90, null],
      ['j', 100, 7],
      ['k', 110, null],
      ['l', 120, 8],
    ]);
  });

  it('is built every run on a database with plugins, which see every query', async () => {
    const { db: watched, counted } = countingQueries(t.app.db);
    const insert = compiledInsert('jobs', (query) => query);
    await insert(watched, [timer('plugged-1', 1)]);
    await insert(watched, [timer('plugged-2', 2)]);
    expect(counted.seen).toBe(2);
  });

  it('stores an alert with its deliveries and timer, building no statement again for the next of its shape', async () => {
    const { user } = await createUser(t.app);
    const { db, counted } = countingInserts(t.app.db);
    const write = async (subject: string) => {
      const alert = alertRow(user.id, { escalation_at: 5_000 });
      const deliveries = ['+351912000001', '+351912000002'].map((phone_number, i) =>
        queuedDelivery({ alertId: alert.id, recipient: { contact_name: `C${i}`, phone_number }, body: 'help', now: 1 }),
      );
      // On PostgreSQL one statement with its deliveries and job in a WITH; on SQLite three.
      const stored = await insertAlert(db, alert, deliveries, {
        dialect: t.app.dialect,
        // A kind no engine runs: the row stays to be read.
        jobs: [{ kind: 'probe-escalation' as JobKind, subject, dueAt: 5_000, now: 1 }],
      });
      expect(stored).toMatchObject({ id: alert.id, user_id: user.id, escalation_at: 5_000 });
      return alert.id;
    };
    await write('first');
    const built = counted.built;
    const second = await write('second');
    expect(counted.built).toBe(built);
    const deliveries = await t.app.db
      .selectFrom('deliveries')
      .select('phone_number')
      .where('alert_id', '=', second)
      .execute();
    expect(deliveries.map((row) => row.phone_number).sort()).toEqual(['+351912000001', '+351912000002']);
    const timers = await t.app.db.selectFrom('jobs').select('due_at').where('subject', '=', 'second').execute();
    expect(timers.map((row) => Number(row.due_at))).toEqual([5_000]);
  });
});
