import {
  AbortedTransactionError,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';

/**
 * One pooled connection of `PipelinedDialect`. A transaction's BEGIN waits for its first statement
 * and goes out with it, in one write: PostgreSQL runs them in order and answers both at once. A
 * statement marked with `commitWithNext` carries the COMMIT behind it the same way: a transaction
 * of one statement is one round trip where it was three. Its client is in pg's pipeline mode,
 * which sends a query without waiting for the answer to the one before; each query keeps its own
 * answer, and a failed statement leaves the transaction aborted: the COMMIT behind it rolls back.
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
    const [result] = await this.executeTogether<R>([query]);
    return result as QueryResult<R>;
  }

  /**
   * Sends `queries` in one write, the transaction's BEGIN before them when it is still to be sent
   * and its COMMIT after them when the next statement was marked last; answers each query's
   * result once all are answered (the first failure is the one thrown).
   */
  async executeTogether<R>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]> {
    if (this.#discarded) throw new Error('the PostgreSQL connection was discarded');
    if (this.#ended) throw new Error('the transaction has ended: its last statement carried its COMMIT');
    const begin = this.#begin;
    const commit = this.#commitNext;
    this.#begin = null;
    this.#commitNext = false;
    const [only] = queries;
    if (begin === null && !commit && only && queries.length === 1) {
      return [resultOf<R>(await this.#client.query(only.sql, [...only.parameters]))];
    }
    if (commit) this.#ended = true;
    const { stream } = this.#client.connection;
    // The queries are written into the socket's buffer and leave it together, in one write.
    stream.cork();
    const sent: Promise<pg.QueryResult>[] = [];
    try {
      if (begin !== null) sent.push(this.#client.query(begin));
      for (const query of queries) sent.push(this.#client.query(query.sql, [...query.parameters]));
      if (commit) sent.push(this.#client.query('commit'));
    } finally {
      stream.uncork();
    }
    // Every answer is awaited, so none is left to reject unheard.
    const answers = await Promise.allSettled(sent);
    for (const answer of answers) if (answer.status === 'rejected') throw answer.reason;
    const values = answers.map((answer) => (answer as PromiseFulfilledResult<pg.QueryResult>).value);
    if (commit && values.at(-1)?.command === 'ROLLBACK') throw new AbortedTransactionError();
    const first = begin === null ? 0 : 1;
    return values.slice(first, first + queries.length).map((value) => resultOf<R>(value));
  }

  /** Outside a transaction: sends `queries` in one write, each a statement of its own, and answers each one's outcome. */
  async executeEach<R>(queries: readonly CompiledQuery[]): Promise<PromiseSettledResult<QueryResult<R>>[]> {
    if (this.#discarded || this.#inTransaction) throw new Error('executeEach runs outside a transaction');
    const { stream } = this.#client.connection;
    stream.cork();
    const sent: Promise<QueryResult<R>>[] = [];
    try {
      for (const query of queries) sent.push(this.#client.query(query.sql, [...query.parameters]).then(resultOf<R>));
    } finally {
      stream.uncork();
    }
    return Promise.allSettled(sent);
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
    if (!this.#endsHere()) return;
    const { command } = await this.#client.query('commit');
    // PostgreSQL completes COMMIT with a ROLLBACK tag if an earlier statement left the transaction aborted.
    if (command === 'ROLLBACK') throw new AbortedTransactionError();
  }

  /** Kysely's ROLLBACK: nothing to send when the transaction already ended or never began. */
  async rollback(): Promise<void> {
    if (!this.#endsHere()) return;
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

  /** Ends the transaction's state; true when PostgreSQL has it open, to be ended by a statement. */
  #endsHere(): boolean {
    const open = !this.#ended && this.#begin === null;
    this.#reset();
    return open;
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
    const refused = this.#destroyed
      ? 'the PostgreSQL driver has been destroyed'
      : !client.pipeline && "PipelinedDialect needs a pool of clients in pg's pipeline mode";
    if (refused) {
      client.release();
      throw new Error(refused);
    }
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new PipelinedConnection(client);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: PipelinedConnection, settings: TransactionSettings): Promise<void> {
    const mode = [
      ...(settings.isolationLevel ? [`isolation level ${settings.isolationLevel}`] : []),
      ...(settings.accessMode ? [settings.accessMode] : []),
    ];
    connection.begin(mode.length > 0 ? `start transaction ${mode.join(' ')}` : 'begin');
  }

  commitTransaction(connection: PipelinedConnection): Promise<void> {
    return connection.commit();
  }

  rollbackTransaction(connection: PipelinedConnection): Promise<void> {
    return connection.rollback();
  }

  async releaseConnection(connection: PipelinedConnection): Promise<void> {
    connection.release();
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
