import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import { PipelinedConnection } from './postgres-driver.js';
import type { Database } from './schema.js';

/** Most statements one write carries: more in a turn go out in further writes, on other connections. */
export const MOST_PER_WRITE = 16;

interface Waiting {
  query: CompiledQuery;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: unknown) => void;
}

/** Per database, the statements waiting for the end of this turn of the event loop. */
const turns = new WeakMap<object, Waiting[]>();

/**
 * Runs `query`, a statement of its own outside any transaction, with the others sent this way in
 * the same turn of the event loop: on PostgreSQL they leave together at the turn's end, in one
 * write on one pooled connection (at most MOST_PER_WRITE each), and each is answered on its own,
 * one that fails failing alone. Each write woke a PostgreSQL backend and cost the server's process
 * a system call: under load the alert route's owner reads of one turn now share them. PostgreSQL
 * runs a write's statements one after another, so only statements that never wait for a lock
 * belong here (reads): one waiting would hold up those behind it. In a transaction, or on a
 * database with Kysely plugins (which see each query), it runs at once, as any query.
 */
export function withTurn<R>(db: Kysely<Database>, query: CompiledQuery<R>): Promise<QueryResult<R>> {
  if (db.isTransaction || db.getExecutor().plugins.length > 0) return db.executeQuery(query);
  const batch = turns.get(db) ?? newTurn(db);
  return new Promise<QueryResult<R>>((resolve, reject) => {
    batch.push({ query, resolve: resolve as Waiting['resolve'], reject });
  });
}

/** The statements of this turn on `db`, sent together once the turn ends. */
function newTurn(db: Kysely<Database>): Waiting[] {
  const batch: Waiting[] = [];
  turns.set(db, batch);
  setImmediate(() => {
    turns.delete(db);
    for (let start = 0; start < batch.length; start += MOST_PER_WRITE) {
      void sendTogether(db, batch.slice(start, start + MOST_PER_WRITE));
    }
  });
  return batch;
}

/** Sends `batch` on one pooled connection: in one write when it is pipelined, else each as Kysely runs it. */
async function sendTogether(db: Kysely<Database>, batch: Waiting[]): Promise<void> {
  try {
    await db.connection().execute((one) =>
      one.getExecutor().provideConnection(async (connection) => {
        const outcomes =
          connection instanceof PipelinedConnection
            ? await connection.executeEach(batch.map((work) => work.query))
            : await Promise.allSettled(batch.map((work) => connection.executeQuery(work.query)));
        outcomes.forEach((outcome, i) => {
          const work = batch[i] as Waiting;
          if (outcome.status === 'fulfilled') work.resolve(outcome.value);
          else work.reject(outcome.reason);
        });
      }),
    );
  } catch (error) {
    // No connection in time: each statement fails with that error (a settled promise ignores it).
    for (const work of batch) work.reject(error);
  }
}

/**
 * Marks the next statement of `trx` as its last: on PostgreSQL its COMMIT is sent with it and
 * the statement resolves once both are answered (it rejects if either fails, the transaction
 * rolled back); a statement after it is refused. Elsewhere it changes nothing: the transaction
 * commits as usual when its callback returns.
 */
export async function commitWithNext(trx: Pick<Kysely<unknown>, 'isTransaction' | 'getExecutor'>): Promise<void> {
  if (!trx.isTransaction) throw new Error('commitWithNext outside a transaction');
  await trx.getExecutor().provideConnection(async (connection) => {
    if (connection instanceof PipelinedConnection) connection.commitWithNext();
  });
}

/**
 * Runs `queries` in `trx` in their order, none shaped by another's answer: on PostgreSQL they are
 * sent in one write and PostgreSQL runs each as the one before it has ended (a statement after a
 * lock runs once the lock is taken, and reads what was committed before it). Elsewhere, and on a
 * database with Kysely plugins (which see each query), one after another. Answers each one's rows.
 */
export async function executeTogether<R>(
  trx: Pick<Kysely<unknown>, 'getExecutor'>,
  queries: readonly CompiledQuery[],
): Promise<QueryResult<R>[]> {
  const executor = trx.getExecutor();
  if (executor.plugins.length === 0) {
    const together = await executor.provideConnection(async (connection) =>
      connection instanceof PipelinedConnection ? connection.executeTogether<R>(queries) : undefined,
    );
    if (together) return together;
  }
  const results: QueryResult<R>[] = [];
  for (const query of queries) results.push(await executor.executeQuery<R>(query));
  return results;
}
