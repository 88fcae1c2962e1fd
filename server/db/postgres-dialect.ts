import type { DatabaseConnection, Driver, TransactionSettings } from 'kysely';
import { PostgresDialect } from 'kysely';
import type pg from 'pg';
import { PipelinedConnection } from './postgres-driver.js';

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
    await connection.begin(mode.length > 0 ? `start transaction ${mode.join(' ')}` : 'begin');
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
