import type { SqliteDatabase } from 'kysely';
import type { SQLiteDatabase } from './sqlite-driver.js';

/** Prepared statements kept, by SQL text: the app's queries are a few hundred shapes. */
const KEPT = 1_000;

/**
 * The SQLite database as Kysely's dialect sees it, with each statement prepared once and kept,
 * least recently used out first: Kysely prepares every query it runs, each time it runs it, and
 * the alert route's statements are short enough that preparing them weighs (docs/PERFORMANCE.md).
 */
export function keepingStatements(sqlite: SQLiteDatabase): SqliteDatabase {
  const kept = new Map<string, ReturnType<SQLiteDatabase['prepare']>>();
  return {
    prepare(sql) {
      let statement = kept.get(sql);
      if (statement) {
        kept.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
      }
      kept.set(sql, statement);
      return statement;
    },
    close() {
      kept.clear();
      sqlite.close();
    },
  };
}
