import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../server/app.js';
import { type DatabaseHandle, openDatabase } from '../../server/db/index.js';
import type { Clock } from '../../server/lib/clock.js';
import { collect, dbKind, TEST_JWT_SECRET, type TestApp } from './helper.js';

/**
 * A second, independent connection pool on the test app's database (its SQLite file, or its
 * PostgreSQL schema), as another server process would have. Close it when done.
 */
export async function secondConnection(t: TestApp): Promise<DatabaseHandle> {
  if (dbKind === 'sqlite') return openDatabase({ dataDir: t.dataDir });
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(t.app.db);
  return openDatabase({
    databaseUrl: process.env.TEST_DATABASE_URL,
    dataDir: t.dataDir,
    pgSchema: rows[0]?.schema as string,
  });
}

/**
 * Another server process on the test app's database, with its own connections and `clock`
 * (the test app's by default), not yet ready: a test may add to it before `ready()`. With
 * `logLines`, its log at error level is kept there. `close()` closes the app and its connections.
 */
export async function secondServer(
  t: TestApp,
  clock: Clock = t.clock,
  options: { logLines?: string[] } = {},
): Promise<{ app: FastifyInstance; close: () => Promise<void> }> {
  const handle = await secondConnection(t);
  const logger = options.logLines ? { level: 'error', stream: collect(options.logLines) } : false;
  const app = await buildApp({ config: t.config, jwtSecret: TEST_JWT_SECRET, database: handle, clock, logger });
  return {
    app,
    async close() {
      await app.close();
      await handle.close();
    },
  };
}
