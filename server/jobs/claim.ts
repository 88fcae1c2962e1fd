import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  type Compilable,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  sql,
  type UpdateObject,
} from 'kysely';
import { compiledOnce } from '../db/compiled-once.js';
import type { Dialect } from '../db/index.js';
import type { Database, Job } from '../db/schema.js';

/** One way a job can be due: a condition, with the most rows it may give (else the claim's `limit`). */
export interface ClaimArm {
  where: (eb: ExpressionBuilder<Database, 'jobs'>) => Expression<SqlBool>;
  limit?: number;
}

/** What a claim takes: when a job is due, what the claim writes on it, how many. */
interface ClaimOptions {
  /**
   * The ways a job can be due, each a range of the (kind, due_at) index in due order (a job is
   * due when one holds). Each is looked up on its own, for at most its limit: one OR of them
   * makes SQLite and PostgreSQL gather and sort every due row at each claim, so that a claim
   * costs as much as the backlog is long (docs/PERFORMANCE.md).
   */
  due: ClaimArm[];
  set: UpdateObject<Database, 'jobs'>;
  limit: number;
}

/**
 * Atomically takes up to `limit` jobs that one of `due` picks, oldest due first, and writes `set`
 * on them (the lease, the attempt): any number of processes each take a job once. On PostgreSQL
 * the due rows are picked and locked once, in materialised CTEs (a LIMIT subquery inside `IN (…)`
 * may be run again by the planner and hand over rows another process has just taken), rows
 * another process holds are skipped (FOR UPDATE SKIP LOCKED), and a row another process changed
 * since the statement began is locked as it is now and taken only if it is still due (READ
 * COMMITTED's recheck of a locking read); the update then writes the rows it locked, found by
 * their ids. On SQLite the single UPDATE … RETURNING holds the write lock from start to end. One
 * statement is its own transaction: no lock is held across an await.
 */
export function claimQuery(db: Kysely<Database>, dialect: Dialect, options: ClaimOptions) {
  const { set, limit } = options;
  const arms = options.due.map((arm) => ({ where: arm.where, limit: arm.limit ?? limit }));
  /** The first due rows of one arm (at most its limit), in due order, from the index. */
  const armRows = (qc: Kysely<Database>, arm: (typeof arms)[number]) =>
    qc.selectFrom('jobs').select(['id', 'due_at']).where(arm.where).orderBy('due_at').limit(arm.limit);
  /** The first `limit` ids of the arms' rows together. */
  const firstIds = (parts: Expression<unknown>[]) =>
    sql<string>`(select id from (${sql.join(
      parts.map((part, i) => sql`select id, due_at from ${part} as ${sql.id(`arm_${i}`)}`),
      sql` union all `,
    )}) as due order by due_at limit ${limit})`;
  if (dialect === 'postgres') {
    // Each arm's rows picked and locked once, in a materialised CTE.
    // biome-ignore lint/suspicious/noExplicitAny: a chain of CTEs whose names are made here.
    const withArms = arms.reduce<any>(
      (query, arm, i) =>
        query.with(
          // biome-ignore lint/suspicious/noExplicitAny: as above.
          (cte: any) => cte(`due_${i}`).materialized(),
          (qc: Kysely<Database>) => armRows(qc, arm).forUpdate().skipLocked(),
        ),
      db,
    ) as Kysely<Database>;
    // The rows are found by their ids alone. Checking the arms here again would give the planner
    // a second way in: with statistics taken while the queue was empty it reads every queued row
    // (the whole backlog) to find the few ids.
    return withArms
      .updateTable('jobs')
      .set(set)
      .where('id', 'in', firstIds(arms.map((_, i) => sql.table(`due_${i}`))))
      .returningAll();
  }
  return db
    .updateTable('jobs')
    .set(set)
    .where('id', 'in', firstIds(arms.map((arm) => sql`(${armRows(db, arm)})`)))
    .returningAll();
}

/** A claim's values: its time, lease and token, each arm's limit (`limit_<i>`) and their total. */
type ClaimValues = Record<string, unknown>;

/** The claim of each shape (the kinds of each arm), built once (`compiledOnce`): it brings only its values. */
const claims = new Map<string, (db: Kysely<Database>, dialect: Dialect, values: ClaimValues) => Promise<Job[]>>();

function claimOfShape(shape: string[][]) {
  const key = JSON.stringify(shape);
  let claim = claims.get(key);
  if (!claim) {
    claim = compiledOnce<ClaimValues, Job>((qdb, value, qdialect) => {
      const now = value('now') as number;
      const due = (eb: ExpressionBuilder<Database, 'jobs'>) =>
        eb.and([
          eb('due_at', '<=', now),
          eb('failed_at', 'is', null),
          eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
        ]);
      return claimQuery(qdb, qdialect, {
        due: shape.map((kinds, i) => ({
          where: (eb) =>
            eb.and([kinds.length === 1 ? eb('kind', '=', kinds[0] as string) : eb('kind', 'in', kinds), due(eb)]),
          limit: value(`limit_${i}`) as number,
        })),
        set: {
          lease_until: value('leaseUntil') as number,
          lease_token: value('token') as string,
          attempts: sql<number>`attempts + 1`,
        },
        limit: value('total') as number,
      }) as Compilable<Job>;
    });
    claims.set(key, claim);
  }
  return claim;
}

/**
 * Takes due jobs, at most `count` of each arm's kinds, under a lease until `now + leaseMs` with a
 * token of this claim's: one statement, whose shape is built once (building it at every call
 * would cost the server more than the database spends running it). A claim the database refused
 * (SQLite busy past its timeout) is tried once more after `retryMs`.
 */
export async function claimDue(
  db: Kysely<Database>,
  dialect: Dialect,
  claim: {
    arms: { kinds: string[]; count: number }[];
    now: number;
    leaseMs: number;
    retryMs: number;
    log?: Pick<FastifyBaseLogger, 'warn'> | undefined;
  },
): Promise<Job[]> {
  const { arms, now, leaseMs } = claim;
  const values: ClaimValues = { now, leaseUntil: now + leaseMs, token: randomUUID() };
  for (const [i, { count }] of arms.entries()) values[`limit_${i}`] = count;
  values.total = arms.reduce((sum, { count }) => sum + count, 0);
  const run = claimOfShape(arms.map(({ kinds }) => kinds));
  try {
    return await run(db, dialect, values);
  } catch (error) {
    claim.log?.warn({ err: error }, 'jobs not claimed; trying again');
    await new Promise((resolve) => setTimeout(resolve, claim.retryMs));
    return run(db, dialect, values);
  }
}

/** Gives claimed jobs back, due as they were: their lease cleared and their attempt not counted. */
export async function unclaim(db: Kysely<Database>, jobs: Job[]): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ lease_until: null, lease_token: null, attempts: sql<number>`attempts - 1` })
    .where(
      'id',
      'in',
      jobs.map((job) => job.id),
    )
    .where('lease_token', '=', jobs[0]?.lease_token ?? '')
    .execute();
}
