import { AbortedTransactionError, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import type pg from 'pg';
import pgUtils from 'pg/lib/utils.js';

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
  /**
   * Where the connection's transaction stands: none; begun by Kysely, its BEGIN waiting for the
   * first statement; open on PostgreSQL; or ended by a last statement that carried its COMMIT
   * (Kysely's COMMIT or ROLLBACK after it sends nothing).
   */
  #transaction: 'none' | 'pending' | 'open' | 'ended' = 'none';
  /** The next statement is the transaction's last: its COMMIT goes with it. */
  #commitNext = false;
  /** Why the COMMIT the last statement carried did not commit: Kysely's COMMIT after it throws this. */
  #notCommitted: unknown = null;
  /** A BEGIN or a ROLLBACK failed: the connection's state is unknown and the pool drops it. */
  #discarded = false;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#transaction !== 'pending' && !this.#commitNext) {
      this.#usable();
      return resultOf<R>(await this.#client.query(query.sql, query.parameters as unknown[]));
    }
    const [result] = await this.executeTogether<R>([query]);
    return result as QueryResult<R>;
  }

  /**
   * Sends `queries` in one write, the transaction's BEGIN before them when it is still to be sent
   * and its COMMIT after them when the next statement was marked last; answers each query's
   * result once all are answered (the first failure is the one thrown).
   */
  async executeTogether<R>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]> {
    this.#usable();
    const begin = this.#transaction === 'pending';
    const commit = this.#commitNext;
    // Each value is tried as pg will send it before anything is sent: a value pg cannot send would
    // fail its statement on this side alone, and the COMMIT behind it would commit.
    if (commit) for (const query of queries) for (const value of query.parameters) pgUtils.prepareValue(value);
    this.#commitNext = false;
    if (begin) this.#transaction = 'open';
    if (commit) this.#transaction = 'ended';
    const answers = await Promise.allSettled(
      this.#sent([...(begin ? [BEGIN] : []), ...queries, ...(commit ? [COMMIT] : [])]),
    );
    // A BEGIN refused: the statements behind it ran on their own; the connection is not reused.
    if (begin && answers[0]?.status === 'rejected') this.#discarded = true;
    const failed = answers.find((answer) => answer.status === 'rejected');
    const last = answers.at(-1);
    const committed = commit && last?.status === 'fulfilled' && last.value.command === 'COMMIT';
    if (commit && !committed) this.#notCommitted = failed ? failed.reason : new AbortedTransactionError();
    if (failed && committed) {
      throw new Error(`the transaction committed, but an answer could not be read: ${String(failed.reason)}`);
    }
    if (failed) throw failed.reason;
    if (commit && !committed) throw this.#notCommitted;
    const first = begin ? 1 : 0;
    return answers
      .slice(first, first + queries.length)
      .map((answer) => resultOf<R>((answer as PromiseFulfilledResult<pg.QueryResult>).value));
  }

  /** Outside a transaction: sends `queries` in one write, each a statement of its own, and answers each one's outcome. */
  async executeEach<R>(queries: readonly CompiledQuery[]): Promise<PromiseSettledResult<QueryResult<R>>[]> {
    if (this.#discarded || this.#transaction !== 'none') throw new Error('executeEach runs outside a transaction');
    return Promise.allSettled(this.#sent(queries).map((answer) => answer.then(resultOf<R>)));
  }

  // biome-ignore lint/correctness/useYield: no cursor is configured; Kysely's own driver refuses the same way.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not configured for PostgreSQL');
  }

  /** The next statement ends the transaction (see the class). */
  commitWithNext(): void {
    if (this.#transaction === 'none') throw new Error('commitWithNext outside a transaction');
    this.#commitNext = true;
  }

  /**
   * Kysely's BEGIN: a plain one is sent with the transaction's first statement; one with an
   * isolation level or access mode, which PostgreSQL may refuse (a standby refuses read write),
   * is sent at once, so that no statement runs outside the transaction it asked for.
   */
  async begin(sql: string): Promise<void> {
    if (sql !== BEGIN.sql) await this.#client.query(sql);
    this.#transaction = sql === BEGIN.sql ? 'pending' : 'open';
  }

  /**
   * Kysely's COMMIT: nothing to send when no statement ran, or when the last statement carried it
   * (whose failure to commit it answers again, should the caller have caught it).
   */
  async commit(): Promise<void> {
    const notCommitted = this.#notCommitted;
    if (!this.#endsHere()) {
      if (notCommitted) throw notCommitted;
      return;
    }
    const { command } = await this.#client.query(COMMIT.sql);
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
    this.#endsHere();
    // A connection left inside a transaction is not handed to the next caller.
    this.#client.release(this.#discarded || this.#client.getTransactionStatus() !== 'I');
  }

  /** Refuses a statement on a discarded connection, or after the one that carried the COMMIT. */
  #usable(): void {
    if (this.#discarded) throw new Error('the PostgreSQL connection was discarded');
    if (this.#transaction === 'ended') {
      throw new Error('the transaction has ended: its last statement carried its COMMIT');
    }
  }

  /** Writes `queries` into the socket's buffer, which sends them together, in one write. */
  #sent(queries: readonly Pick<CompiledQuery, 'sql' | 'parameters'>[]): Promise<pg.QueryResult>[] {
    const { stream } = this.#client.connection;
    stream.cork();
    try {
      return queries.map((query) => this.#client.query(query.sql, query.parameters as unknown[]));
    } finally {
      stream.uncork();
    }
  }

  /** Forgets the transaction; true when PostgreSQL has it open, to be ended by a statement. */
  #endsHere(): boolean {
    const open = this.#transaction === 'open';
    this.#transaction = 'none';
    this.#commitNext = false;
    this.#notCommitted = null;
    return open;
  }
}

/** The statements the connection adds around a transaction's own. */
const BEGIN = { sql: 'begin', parameters: [] } as const;
const COMMIT = { sql: 'commit', parameters: [] } as const;

/** A pg result as Kysely's own PostgreSQL driver answers it. */
function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  if (command === 'COMMIT' || command === 'ROLLBACK') return { rows: [{ command } as R] };
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { ...(writes ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}), rows: (rows ?? []) as R[] };
}
