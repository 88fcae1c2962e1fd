import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../server/db/index.js';
import { migrations } from '../../server/db/migrations/index.js';
import { type RunningServer, startServer } from '../e2e/server.js';
import { dbKind, dbLabel, describeOn, freshDatabase } from './helper.js';

// However many replicas start together on an empty database (compose.yaml's deploy.replicas),
// the migrations run once. On PostgreSQL Kysely's migrator holds an advisory lock while it
// migrates, and whoever comes after it finds nothing left to run; on SQLite, which has no such
// lock, the one that meets the other's tables rolls back and tries again (server/db/migrate.ts).

const MIGRATIONS = Object.keys(migrations).length;

/** The migrations a database has recorded, by name, and how many times each. */
async function recorded(db: DatabaseHandle['db']): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; times: number }>`
    select name, count(*) as times from kysely_migration group by name`.execute(db);
  return new Map(rows.map((row) => [row.name, Number(row.times)]));
}

describe(`migrations started twice at the same instant (${dbLabel})`, () => {
  it('both finish, and every migration is recorded once', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-migrate-'));
    const fresh = await freshDatabase(dataDir, 2);
    const { pgSchema } = fresh.handle;
    // A second pool on the same empty database, as a second process has.
    const databaseUrl = dbKind === 'postgres' ? process.env.TEST_DATABASE_URL : undefined;
    const other = openDatabase({ databaseUrl, dataDir, pgSchema, pgPoolSize: 2 });
    try {
      await Promise.all([migrateToLatest(fresh.handle.db, pgSchema), migrateToLatest(other.db, pgSchema)]);
      const seen = await recorded(fresh.handle.db);
      expect(seen.size).toBe(MIGRATIONS);
      expect([...seen.values()].filter((times) => times !== 1)).toEqual([]);
    } finally {
      await other.close();
      await fresh.handle.close();
      await fresh.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describeOn('postgres')('two server processes started at the same instant on an empty database (PostgreSQL)', () => {
  it('both come up and ready, with the schema migrated once', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const database = `alerta_migrate_${randomBytes(5).toString('hex')}`;
    await admin.query(`create database ${database}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    const started: RunningServer[] = [];
    try {
      // Both spawned in the same tick, neither waiting for the other.
      const results = await Promise.allSettled([
        startServer({ DATABASE_URL: url.href }),
        startServer({ DATABASE_URL: url.href }),
      ]);
      for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'up'))).toEqual(['up', 'up']);
      for (const server of started) {
        const ready = await fetch(`${server.url}/api/ready`);
        expect(ready.status).toBe(200);
      }
      const check = new pg.Client({ connectionString: url.href });
      await check.connect();
      try {
        const { rows } = await check.query<{ name: string; times: string }>(
          'select name, count(*) as times from kysely_migration group by name',
        );
        expect(rows).toHaveLength(MIGRATIONS);
        expect(rows.filter((row) => Number(row.times) !== 1)).toEqual([]);
      } finally {
        await check.end();
      }
    } finally {
      for (const server of started) await server.stop();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  }, 90_000);
});
