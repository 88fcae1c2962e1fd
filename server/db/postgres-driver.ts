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
  /** Kysely began a transaction on the connection and has not ended it. */
  #inTransaction = false;
  /** The BEGIN that goes out with the transaction's first statement. */
  #begin: string | null = null;
  /** The next statement is the transaction's last: its COMMIT goes with it. */
  #commitNext = false;
  /** The transaction has ended with its last statement: Kysely's COMMIT or ROLLBACK after it sends nothing. */
  #ended = false;
  /** Why the COMMIT the last statement carried did not commit: Kysely's COMMIT after it throws this. */
  #notCommitted: unknown = null;
  /** A BEGIN or a ROLLBACK failed: the connection's state is unknown and the pool drops it. */
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
    // Each value is tried as pg will send it before anything is sent: a value pg cannot send would
    // fail its statement on this side alone, and the COMMIT behind it would commit.
    for (const query of queries) for (const value of query.parameters) pgUtils.prepareValue(value);
    const values = queries.map((query) => [...query.parameters]);
    const begin = this.#begin;
    const commit = this.#commitNext;
    this.#begin = null;
    this.#commitNext = false;
    const [only] = queries;
    if (begin === null && !commit && only && queries.length === 1) {
      return [resultOf<R>(await this.#client.query(only.sql, values[0]))];
    }
    if (commit) this.#ended = true;
    const { stream } = this.#client.connection;
    // The queries are written into the socket's buffer and leave it together, in one write.
    stream.cork();
    const sent: Promise<pg.QueryResult>[] = [];
    try {
      if (begin !== null) sent.push(this.#client.query(begin));
      for (const [i, query] of queries.entries()) sent.push(this.#client.query(query.sql, values[i]));
      if (commit) sent.push(this.#client.query('commit'));
    } finally {
      stream.uncork();
    }
    // Every answer is awaited, so none is left to reject unheard.
    const answers = await Promise.allSettled(sent);
    // A BEGIN refused: the statements behind it ran on their own; the connection is not reused.
    if (begin !== null && answers[0]?.status === 'rejected') this.#discarded = true;
    const failed = answers.find((answer) => answer.status === 'rejected');
    const last = answers.at(-1);
    const committed = commit && last?.status === 'fulfilled' && last.value.command === 'COMMIT';
    if (commit && !committed) this.#notCommitted = failed ? failed.reason : new AbortedTransactionError();
    if (failed && committed) {
      throw new Error(`the transaction committed, but an answer could not be read: ${String(failed.reason)}`);
    }
    if (failed) throw failed.reason;
    if (commit && !committed) throw this.#notCommitted;
    const first = begin === null ? 0 : 1;
    return answers
      .slice(first, first + queries.length)
      .map((answer) => resultOf<R>((answer as PromiseFulfilledResult<pg.QueryResult>).value));
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

  /**
   * Kysely's BEGIN: a plain one is sent with the transaction's first statement; one with an
   * isolation level or access mode, which PostgreSQL may refuse (a standby refuses read write),
   * is sent at once, so that no statement runs outside the transaction it asked for.
   */
  async begin(sql: string): Promise<void> {
    if (sql !== 'begin') await this.#client.query(sql);
    this.#inTransaction = true;
    this.#begin = sql === 'begin' ? sql : null;
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
    // A connection left inside a transaction is not handed to the next caller.
    this.#client.release(this.#discarded || this.#client.getTransactionStatus() !== 'I');
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
    this.#notCommitted = null;
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
