import {
  type Compilable,
  type CompiledQuery,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  PostgresAdapter,
} from 'kysely';
import type { Dialect } from './index.js';
import type { Database } from './schema.js';

/** Where a run's value goes in a query built once: Kysely sends it as a parameter like any value. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A query of one fixed shape, built and compiled by Kysely once per dialect; each run only puts
 * its values in. Kysely builds and compiles again every query it runs: for the alert route's
 * first read (three subqueries, two as JSON arrays) that was most of the read's time under load.
 * `build` names each run's value with `value('name')`; only scalars, each sent as one parameter
 * (a list in `in` takes one parameter per item: it has no fixed shape), and the build is refused
 * when a named value does not end up as a parameter.
 */
export function compiledOnce<V extends Record<string, unknown>, R>(
  build: (
    db: Kysely<Database>,
    value: <K extends keyof V & string>(name: K) => V[K],
    dialect: Dialect,
  ) => Compilable<R>,
): (db: Kysely<Database>, dialect: Dialect, values: V) => Promise<R[]> {
  const made = new Map<Dialect, CompiledQuery<R>>();
  const compile = (db: Kysely<Database>, dialect: Dialect): CompiledQuery<R> => {
    const named = new Set<string>();
    const query = build(
      db,
      (name) => {
        named.add(name);
        return new Slot(name) as never;
      },
      dialect,
    ).compile();
    const placed = new Set(query.parameters.flatMap((p) => (p instanceof Slot ? [p.name] : [])));
    const lost = [...named].filter((name) => !placed.has(name));
    if (lost.length > 0) throw new Error(`compiledOnce: ${lost.join(', ')} not sent as a parameter`);
    return query;
  };
  return async (db, dialect, values) => {
    // A database with Kysely plugins (a test's fault at the database's edge) builds each run
    // again, so that they see every query; the server's own has none.
    const cacheable = db.getExecutor().plugins.length === 0;
    let template = cacheable ? made.get(dialect) : undefined;
    if (!template) {
      template = compile(db, dialect);
      if (cacheable) made.set(dialect, template);
    }
    const parameters = template.parameters.map((p) => (p instanceof Slot ? values[p.name] : p));
    const { rows } = await db.executeQuery<R>({ ...template, parameters });
    return rows;
  };
}

/** The insert shapes one `compiledInsert` keeps: beyond them (or beyond this many rows) it builds each run. */
const SHAPES_KEPT = 128;
const MOST_ROWS_KEPT = 64;

/** Where a run's row value goes in an insert built once. */
class Place {
  constructor(
    readonly row: number,
    readonly column: string,
  ) {}
}

/** The row's columns with a value, in its own order. */
const columnsOf = (row: object): string[] =>
  Object.keys(row).filter((column) => (row as Record<string, unknown>)[column] !== undefined);

/** True when `row` has a value for exactly `columns`, in that order. */
function hasColumns(row: object, columns: string[]): boolean {
  let n = 0;
  for (const column in row) {
    if ((row as Record<string, unknown>)[column] === undefined) continue;
    if (column !== columns[n]) return false;
    n += 1;
  }
  return n === columns.length;
}

/**
 * An insert into `table`, compiled by Kysely once per shape (its columns, as the first row names
 * them, and its number of rows) and the database's dialect; each run only puts its rows' values
 * in. `finish` adds what follows the values (a conflict clause, a returning list) and must not
 * depend on them. Rows that do not all name the same columns, shapes beyond those kept, and a
 * database with Kysely plugins (which see every query) are built as usual. Building the inserts
 * of an alert's 19 columns and of its deliveries' was a sixth of the alert route's time under
 * load on SQLite, and each new text cost its statement cache a hash.
 */
export function compiledInsert<T extends keyof Database & string, R>(
  table: T,
  finish: (query: InsertQueryBuilder<Database, T, InsertResult>) => Compilable<R>,
): (db: Kysely<Database>, rows: readonly Insertable<Database[T]>[]) => Promise<R[]> {
  const shapes = new Map<string, { query: CompiledQuery<R>; places: (Place | undefined)[] }>();
  const compile = (db: Kysely<Database>, rows: readonly object[], columns: string[]) => {
    const slots = rows.map((_, row) => Object.fromEntries(columns.map((column) => [column, new Place(row, column)])));
    const query = finish(db.insertInto(table).values(slots as never)).compile();
    const places = query.parameters.map((p) => (p instanceof Place ? p : undefined));
    if (places.filter(Boolean).length !== rows.length * columns.length) {
      throw new Error(`compiledInsert: the values of ${table} are not all sent as parameters`);
    }
    return { query, places };
  };
  return async (db, rows) => {
    const columns = columnsOf(rows[0] ?? {});
    const kept =
      rows.length <= MOST_ROWS_KEPT &&
      db.getExecutor().plugins.length === 0 &&
      rows.every((row) => hasColumns(row, columns));
    const shape = `${dialectOf(db)}:${rows.length}:${columns.join(',')}`;
    let made = kept ? shapes.get(shape) : undefined;
    if (!made && kept && shapes.size < SHAPES_KEPT) {
      made = compile(db, rows, columns);
      shapes.set(shape, made);
    }
    if (!made) return (await db.executeQuery(finish(db.insertInto(table).values(rows as never)).compile())).rows;
    const { query, places } = made;
    const parameters = places.map((place, i) =>
      place ? (rows[place.row] as Record<string, unknown>)[place.column] : query.parameters[i],
    );
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/** The dialect a database speaks, from its Kysely adapter. */
const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
