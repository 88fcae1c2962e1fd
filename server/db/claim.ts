import {
  type Compilable,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SqlBool,
  sql,
  type UpdateObject,
} from 'kysely';
import type { Dialect } from './index.js';
import type { Database } from './schema.js';

/** The table of work a server does later (the job engine's), each row taken by one process under a lease. */
type Claimable = 'timers';

/** One way a row can be due: a condition, or a condition with the most rows it may give (else the claim's `limit`). */
export type ClaimArm<T extends Claimable> =
  | ((eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>)
  | { where: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>; limit: number };

/** What a claim takes: when a row is due, in which order, what the claim writes, how many. */
interface ClaimOptions<T extends Claimable> {
  /**
   * The ways a row can be due, each a range of an index in `orderBy` order (a row is due when
   * one holds). Each is looked up on its own, for at most `limit` rows: one OR of them makes
   * SQLite and PostgreSQL gather and sort every due row at each claim, so that a claim costs as
   * much as the backlog is long (docs/PERFORMANCE.md). An arm
   * with a limit of its own gives at most that many (a kind's free places among the claim's).
   */
  due: ClaimArm<T>[];
  orderBy: 'due_at';
  set: UpdateObject<Database, T>;
  limit: number;
}

/**
 * Atomically takes up to `limit` rows of `table` that one of `due` picks, oldest `orderBy` first,
 * and writes `set` on them (the lease, the attempt): any number of processes each take a row once.
 * On PostgreSQL the due rows are picked and locked once, in materialised CTEs (a LIMIT subquery
 * inside `IN (…)` may be run again by the planner and hand over rows another process has just
 * taken), rows another process holds are skipped (FOR UPDATE SKIP LOCKED), and a row another
 * process changed since the statement began is locked as it is now and taken only if it is still
 * due (READ COMMITTED's recheck of a locking read); the update then writes the rows it locked,
 * found by their ids. On SQLite the single UPDATE … RETURNING holds
 * the write lock from start to end. One statement is its own transaction: no lock is held across
 * an await. Not run: a claim of one shape is built once (`compiledOnce`, the job engine's).
 */
export function claimQuery<T extends Claimable>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: T,
  options: ClaimOptions<T>,
): Compilable<Selectable<Database[T]>> & { execute(): Promise<unknown[]> } {
  const { orderBy, set, limit } = options;
  // The table is the one above; Kysely cannot follow a table name through a type parameter.
  // biome-ignore lint/suspicious/noExplicitAny: the same conditions serve the plain and the CTE queries' builders.
  const any = db as Kysely<any>;
  const name: string = table;
  const arms = options.due.map((arm) =>
    typeof arm === 'function'
      ? // biome-ignore lint/suspicious/noExplicitAny: as above.
        { where: arm as unknown as (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>, limit }
      : // biome-ignore lint/suspicious/noExplicitAny: as above.
        { where: arm.where as unknown as (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>, limit: arm.limit },
  );
  /** The first due rows of one arm (at most its limit), in `orderBy` order, from the index. */
  const armRows = (qc: typeof any, arm: (typeof arms)[number]) =>
    qc.selectFrom(name).select(['id', orderBy]).where(arm.where).orderBy(orderBy).limit(arm.limit);
  /** The first `limit` ids of the arms' rows together. */
  const firstIds = (parts: Expression<unknown>[]) =>
    sql`(select id from (${sql.join(
      parts.map((part, i) => sql`select id, ${sql.ref(orderBy)} from ${part} as ${sql.id(`arm_${i}`)}`),
      sql` union all `,
    )}) as due order by ${sql.ref(orderBy)} limit ${limit})`;
  if (dialect === 'postgres') {
    // Each arm's rows picked and locked once, in a materialised CTE: a LIMIT subquery inside
    // `IN (…)` may be run again by the planner and hand over rows another process has just taken.
    const withArms = arms.reduce(
      (query, arm, i) =>
        query.with(
          // biome-ignore lint/suspicious/noExplicitAny: as above.
          (cte: any) => cte(`due_${i}`).materialized(),
          (qc: typeof any) => armRows(qc, arm).forUpdate().skipLocked(),
        ),
      // biome-ignore lint/suspicious/noExplicitAny: a chain of CTEs whose names are made here.
      any as any,
    ) as typeof any;
    // The rows are found by their ids alone. Checking the arms here again would give the planner
    // a second way in: with statistics taken while the queue was empty it reads every queued row
    // (the whole backlog) to find the few ids.
    return withArms
      .updateTable(name)
      .set(set as never)
      .where('id', 'in', firstIds(arms.map((_, i) => sql.table(`due_${i}`))))
      .returningAll();
  }
  return any
    .updateTable(name)
    .set(set as never)
    .where('id', 'in', firstIds(arms.map((arm) => sql`(${armRows(any, arm)})`)))
    .returningAll();
}
