import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The start of the name of every migrated PostgreSQL schema this run reuses (helper.ts appDatabase). */
    pgSchemaPrefix: string;
  }
}

/**
 * Names this run's reusable PostgreSQL schemas (`t_<run>_…`), and drops them when the run ends,
 * the emptied ones kept for the next app included.
 */
export default function setup(project: TestProject) {
  const prefix = `t_${randomBytes(4).toString('hex')}_`;
  project.provide('pgSchemaPrefix', prefix);
  const url = process.env.TEST_DATABASE_URL;
  if (process.env.TEST_DB !== 'postgres' || !url) return;
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ nspname: string }>(
        'select nspname from pg_namespace where starts_with(nspname, $1)',
        [prefix],
      );
      for (const { nspname } of rows) await client.query(`drop schema if exists ${nspname} cascade`);
    } finally {
      await client.end();
    }
  };
}
