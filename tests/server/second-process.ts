import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from '../../server/db/index.js';
import { dbKind, type TestApp } from './helper.js';

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
