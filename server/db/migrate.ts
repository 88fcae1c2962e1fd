import type { Kysely } from 'kysely';
import { type MigrationResultSet, Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

/**
 * PostgreSQL errors of a catalog read that met another session's DDL: Kysely lists the tables
 * of every schema before it takes its migration lock, and a column or table dropped meanwhile
 * (another process migrating, a schema dropped) fails that read: undefined column, table or
 * schema, or a cache lookup that failed.
 */
const CATALOG_RACE = new Set(['42703', '42P01', '3F000', 'XX000']);
const ATTEMPTS = 20;

/** The migrator of this schema: `pgSchema` pins the bookkeeping tables to it (otherwise Kysely finds another schema's `kysely_migration` and skips creating its own). */
function migratorOf(db: Kysely<Database>, pgSchema?: string): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Features land in parallel: a migration named before one a database already ran still runs.
    allowUnorderedMigrations: true,
    ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
  });
}

function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CATALOG_RACE.has(code);
}

/**
 * SQLite has no migration lock (Kysely's is a no-op there): a second process migrating the same
 * file at once meets the first one's tables, or its write lock. Its whole run was one transaction,
 * rolled back, so it is tried again and finds the migrations done.
 */
function isSqliteRace(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    typeof code === 'string' &&
    (code.startsWith('SQLITE_BUSY') || (code === 'SQLITE_ERROR' && /already exists/.test(String(message))))
  );
}

/**
 * Runs `step` (migrate to the latest, or to a named migration); throws with the failing
 * migration's error. A catalog race before any migration ran (no results) leaves nothing
 * half done, so that step is tried again.
 */
export async function migrate(
  db: Kysely<Database>,
  pgSchema: string | undefined,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await step(migratorOf(db, pgSchema));
    if (!error) return;
    if (((results === undefined && isCatalogRace(error)) || isSqliteRace(error)) && attempt < ATTEMPTS) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(20 * attempt, 200)));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'before any migration';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs every pending migration. */
export function migrateToLatest(db: Kysely<Database>, pgSchema?: string): Promise<void> {
  return migrate(db, pgSchema, (migrator) => migrator.migrateToLatest());
}
