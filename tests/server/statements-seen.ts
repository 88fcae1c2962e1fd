import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { SQLite } from '../../server/db/sqlite-driver.js';
import { dbKind } from './helper.js';

/** A statement a test saw: its text, its values, and on SQLite the transaction it ran in (numbered by `begin`, null outside one). */
export interface SeenStatement {
  sql: string;
  parameters: readonly unknown[];
  transaction?: number | null;
}

/** Every SQLite statement, seen by wrapping better-sqlite3's statements until `stop`. */
export function watchSqliteStatements() {
  const seen: SeenStatement[] = [];
  const probe = new SQLite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  const originals = new Map<string, unknown>();
  let begun = 0;
  for (const name of ['run', 'all', 'get']) {
    const original = statement[name] as (...args: unknown[]) => unknown;
    originals.set(name, original);
    statement[name] = function (this: { source: string; database: { inTransaction: boolean } }, ...args: unknown[]) {
      if (this.source === 'begin') begun += 1;
      const parameters = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args) as unknown[];
      seen.push({ sql: this.source, parameters, transaction: this.database.inTransaction ? begun : null });
      return original.apply(this, args);
    };
  }
  return {
    seen,
    stop: () => {
      for (const [name, original] of originals) statement[name] = original;
    },
  };
}

/** Every PostgreSQL statement, seen by wrapping node-postgres's client until `stop`. */
function watchPgStatements() {
  const seen: SeenStatement[] = [];
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    const values = Array.isArray(args[1]) ? args[1] : typeof first === 'object' ? first?.values : undefined;
    if (text) seen.push({ sql: text, parameters: values ?? [] });
    return original.apply(this, args);
  };
  return {
    seen,
    stop: () => {
      client.query = original;
    },
  };
}

/** The statements of the database the tests run on. */
export const watchStatements = () => (dbKind === 'postgres' ? watchPgStatements() : watchSqliteStatements());

/** `db` with a Kysely plugin that counts the queries it sees (plugins see every query Kysely builds). */
export function countingQueries<D extends { withPlugin: (plugin: KyselyPlugin) => D }>(db: D) {
  const counted = { seen: 0 };
  const watched = db.withPlugin({
    transformQuery: ({ node }) => {
      counted.seen += 1;
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { db: watched, counted };
}

/** `db` counting the queries started on it with Kysely's builder (`methods`: `insertInto`, `selectFrom`…). */
export function countingBuilds<D extends object>(db: D, methods: PropertyKey[]) {
  const counted = { built: 0 };
  const starts = new Set(methods);
  const watched = new Proxy(db, {
    get(target, key) {
      if (starts.has(key)) counted.built += 1;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: watched, counted };
}
