import {
  AbortedTransactionError,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';

/**
 * One pooled connection of `PipelinedDialect`. Its transaction's BEGIN waits for the first
 * statement and goes out with it, in one write: PostgreSQL runs them in order and answers both
 * at once. A statement marked with `commitWithNext` carries the transaction's COMMIT behind it
 * the same way, so a transaction of one statement is one round trip where it was three. The
 * connection's client must be in pg's pipeline mode, which sends a query without waiting for
 * the answer to the one before; each query keeps its own answer, and a statement that fails
 * leaves the transaction aborted, so the COMMIT sent behind it rolls back.
 */
export class PipelinedConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  /** Kysely began a transaction on the connection and has not ended it. */
  #inTransaction = false;
  /** The BEGIN that goes out with the transaction's first statement. */
  #begin: string | null = null;
  /** The next statement is the transaction's last: its COMMIT goes with it. */
  #commitNext = false;
  /** The transaction has ended with its last statement: Kysely's COMMIT or ROLLBACK after it sends nothing. */
  #ended = false;
  /** A ROLLBACK failed: the connection's state is unknown and the pool drops it. */
  #discarded = false;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#discarded) throw new Error('the PostgreSQL connection was discarded');
    if (this.#ended) throw new Error('the transaction has ended: its last statement carried its COMMIT');
    const begin = this.#begin;
    const commit = this.#commitNext;
    this.#begin = null;
    this.#commitNext = false;
    const parameters = [...query.parameters];
    if (begin === null && !commit) return resultOf<R>(await this.#client.query(query.sql, parameters));
    if (commit) this.#ended = true;
    const { stream } = this.#client.connection;
    // The queries are written into the socket's buffer and leave it together, in one write.
    stream.cork();
    const sent: Promise<pg.QueryResult>[] = [];
    try {
      if (begin !== null) sent.push(this.#client.query(begin));
      sent.push(this.#client.query(query.sql, parameters));
      if (commit) sent.push(this.#client.query('commit'));
    } finally {
      stream.uncork();
    }
    // Every answer is awaited, so none is left to reject unheard; the first failure is the one thrown.
    const answers = await Promise.allSettled(sent);
    for (const answer of answers) if (answer.status === 'rejected') throw answer.reason;
    const values = answers.map((answer) => (answer as PromiseFulfilledResult<pg.QueryResult>).value);
    if (commit && values.at(-1)?.command === 'ROLLBACK') throw new AbortedTransactionError();
    return resultOf<R>(values[begin === null ? 0 : 1] as pg.QueryResult);
  }

  // biome-ignore lint/correctness/useYield: no cursor is configured; Kysely's own driver refuses the same way.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not configured for PostgreSQL');
  }

  /** The next statement ends the transaction (see the class). */
  commitWithNext(): void {
    if (!this.#inTransaction) throw new Error('commitWithNext outside a transaction');
    this.#commitNext = true;
  }

  /** Kysely's BEGIN: sent with the transaction's first statement. */
  begin(sql: string): void {
    this.#inTransaction = true;
    this.#begin = sql;
  }

  /** Kysely's COMMIT: nothing to send when the last statement carried it, or when no statement ran. */
  async commit(): Promise<void> {
    const sent = !this.#ended && this.#begin === null;
    this.#reset();
    if (!sent) return;
    const { command } = await this.#client.query('commit');
    // PostgreSQL completes COMMIT with a ROLLBACK tag if an earlier statement left the transaction aborted.
    if (command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  /** Kysely's ROLLBACK: nothing to send when the transaction already ended or never began. */
  async rollback(): Promise<void> {
    const sent = !this.#ended && this.#begin === null;
    this.#reset();
    if (!sent) return;
    try {
      await this.#client.query('rollback');
    } catch (error) {
      this.#discarded = true;
      throw error;
    }
  }

  release(): void {
    this.#reset();
    this.#client.release(this.#discarded);
  }

  #reset(): void {
    this.#begin = null;
    this.#commitNext = false;
    this.#ended = false;
    this.#inTransaction = false;
  }
}

/** A pg result as Kysely's own PostgreSQL driver answers it. */
function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  if (command === 'COMMIT' || command === 'ROLLBACK') return { rows: [{ command } as R] };
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { ...(writes ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}), rows: (rows ?? []) as R[] };
}

const asPipelined = (connection: DatabaseConnection) => connection as PipelinedConnection;

/** The driver of `PipelinedDialect`: a pool of pipelined clients, each wrapped once. */
class PipelinedDriver implements Driver {
  readonly #pool: pg.Pool;
  readonly #connections = new WeakMap<pg.PoolClient, PipelinedConnection>();
  #destroyed = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#pool.connect();
    if (this.#destroyed) {
      client.release();
      throw new Error('the PostgreSQL driver has been destroyed');
    }
    if (!client.pipeline) {
      client.release();
      throw new Error("PipelinedDialect needs a pool of clients in pg's pipeline mode");
    }
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new PipelinedConnection(client);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const mode = [
      ...(settings.isolationLevel ? [`isolation level ${settings.isolationLevel}`] : []),
      ...(settings.accessMode ? [settings.accessMode] : []),
    ];
    asPipelined(connection).begin(mode.length > 0 ? `start transaction ${mode.join(' ')}` : 'begin');
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return asPipelined(connection).commit();
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return asPipelined(connection).rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    asPipelined(connection).release();
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await this.#pool.end();
  }
}

/**
 * Kysely's PostgreSQL dialect with `PipelinedDriver`: the same SQL, adapter and introspection,
 * over a pool whose clients are in pg's pipeline mode (`pipeline: true`).
 */
export class PipelinedDialect extends PostgresDialect {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    super({ pool });
    this.#pool = pool;
  }

  override createDriver(): Driver {
    return new PipelinedDriver(this.#pool);
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
