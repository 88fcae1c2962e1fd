import type { Expression, ExpressionBuilder, Kysely, RawBuilder, Selectable, SqlBool, UpdateObject } from 'kysely';
import type { Dialect } from './index.js';
import type { Database } from './schema.js';

/** Tables of work a server does later, each row taken by one process under a lease. */
type Claimable = 'deliveries' | 'timers';

/**
 * Atomically takes up to `limit` rows of `table` that `isDue` picks, oldest `orderBy` first, and
 * writes `set` on them (the lease, the attempt): any number of processes each take a row once.
 * On PostgreSQL the due rows are picked and locked once, in a materialised CTE (a LIMIT subquery
 * inside `IN (…)` may be run again by the planner and hand over rows another process has just
 * taken), rows another process holds are skipped (FOR UPDATE SKIP LOCKED), and the update checks
 * again that each row is still due under its lock. On SQLite the single UPDATE … RETURNING holds
 * the write lock from start to end. One statement is its own transaction: no lock is held across
 * an await.
 */
export async function claimRows<T extends Claimable>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: T,
  options: {
    isDue: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;
    orderBy: 'next_attempt_at' | 'due_at';
    set: UpdateObject<Database, T>;
    limit: number;
    /** Columns of other tables returned with each row, by correlated subqueries (saves a read after). */
    with?: Record<string, RawBuilder<unknown>>;
  },
): Promise<Selectable<Database[T]>[]> {
  const { isDue, orderBy, set, limit } = options;
  const also = Object.entries(options.with ?? {}).map(([name, value]) => value.as(name));
  // The table is one of the two above; Kysely cannot follow a table name through a type parameter.
  const any = db as unknown as Kysely<Record<string, { id: string; next_attempt_at: number; due_at: number }>>;
  const name: string = table;
  // biome-ignore lint/suspicious/noExplicitAny: the same condition serves the plain and the CTE query's builder.
  const due = isDue as unknown as (eb: any) => Expression<SqlBool>;
  const rows =
    dialect === 'postgres'
      ? await any
          .with(
            (cte) => cte('due').materialized(),
            (qc) => qc.selectFrom(name).select('id').where(due).orderBy(orderBy).limit(limit).forUpdate().skipLocked(),
          )
          .updateTable(name)
          .set(set as never)
          .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
          .where(due)
          .returningAll()
          .$if(also.length > 0, (qb) => qb.returning(also))
          .execute()
      : await any
          .updateTable(name)
          .set(set as never)
          .where('id', 'in', (eb) => eb.selectFrom(name).select('id').where(due).orderBy(orderBy).limit(limit))
          .returningAll()
          .$if(also.length > 0, (qb) => qb.returning(also))
          .execute();
  return rows as Selectable<Database[T]>[];
}
