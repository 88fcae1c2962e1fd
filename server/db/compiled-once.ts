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
 * its values in. Kysely builds and compiles again every query it runs, and a read such as the
 * alert route's first (three subqueries, two as JSON arrays) would pay that at every press
 * (docs/PERFORMANCE.md).
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
    const query = { ...template, parameters };
    return (await db.executeQuery<R>(query)).rows;
  };
}

/** The shapes one `compiledRows` keeps: beyond them (or beyond this many rows in a set) it builds each run. */
const SHAPES_KEPT = 128;
const MOST_ROWS_KEPT = 64;

/** Where a run's row value goes in a statement built once: set, row and column. */
class Place {
  constructor(
    readonly set: string,
    readonly row: number,
    readonly column: string,
  ) {}
}

/** The row's columns with a value, in its own order. */
const columnsOf = (row: object): string[] =>
  Object.keys(row).filter((column) => (row as Record<string, unknown>)[column] !== undefined);

/** A value Kysely writes into the statement rather than sending it: an expression, or a function making one. */
const isExpression = (value: unknown): boolean =>
  typeof value === 'function' || (typeof value === 'object' && value !== null && 'toOperationNode' in value);

/** True when `row` has a value for exactly `columns`, in that order, each one sent as a parameter. */
function hasColumns(row: object, columns: string[]): boolean {
  let n = 0;
  for (const column in row) {
    const value = (row as Record<string, unknown>)[column];
    if (value === undefined) continue;
    if (column !== columns[n] || isExpression(value)) return false;
    n += 1;
  }
  return n === columns.length;
}

type RowSets = Record<string, readonly object[]>;

/**
 * A statement that writes sets of rows (an insert's values, or several inserts in one WITH),
 * compiled by Kysely once per shape (each set's columns, as its first row names them, and its
 * number of rows) and the database's dialect; each run only puts its rows' values in. `build`
 * must use the rows only as values. Sets whose rows do not all name the same columns or that hold
 * an expression (a `sql` value, written into the text), shapes beyond those kept, and a database
 * with Kysely plugins (which see every query) are built as usual. The inserts of an alert (19
 * columns) and of its deliveries run at every press (docs/PERFORMANCE.md), and a text kept is
 * one string, which the statement cache hashes once.
 */
export function compiledRows<S extends RowSets, R>(
  build: (db: Kysely<Database>, sets: S) => Compilable<R>,
): (db: Kysely<Database>, sets: S) => Promise<R[]> {
  const shapes = new Map<string, { query: CompiledQuery<R>; places: (Place | undefined)[] }>();
  const compile = (db: Kysely<Database>, sets: S, columns: Map<string, string[]>) => {
    const slotted = Object.fromEntries(
      Object.entries(sets).map(([set, rows]) => [
        set,
        rows.map((_, row) =>
          Object.fromEntries((columns.get(set) ?? []).map((column) => [column, new Place(set, row, column)])),
        ),
      ]),
    ) as unknown as S;
    const query = build(db, slotted).compile();
    const places = query.parameters.map((p) => (p instanceof Place ? p : undefined));
    const values = Object.entries(sets).reduce(
      (n, [set, rows]) => n + rows.length * (columns.get(set)?.length ?? 0),
      0,
    );
    if (places.filter(Boolean).length !== values)
      throw new Error('compiledRows: not every value is sent as a parameter');
    return { query, places };
  };
  return async (db, sets) => {
    const columns = new Map<string, string[]>();
    let shape = dialectOf(db);
    let kept = db.getExecutor().plugins.length === 0;
    for (const set in sets) {
      const rows = sets[set] as readonly object[];
      const named = columnsOf(rows[0] ?? {});
      columns.set(set, named);
      shape += `;${set}:${rows.length}:${named.join(',')}`;
      kept &&= rows.length <= MOST_ROWS_KEPT && rows.every((row) => hasColumns(row, named));
    }
    let made = kept ? shapes.get(shape) : undefined;
    if (!made && kept && shapes.size < SHAPES_KEPT) {
      made = compile(db, sets, columns);
      shapes.set(shape, made);
    }
    if (!made) return (await db.executeQuery(build(db, sets).compile())).rows;
    const { query, places } = made;
    const parameters = places.map((place, i) =>
      place
        ? ((sets[place.set] as readonly Record<string, unknown>[])[place.row] as Record<string, unknown>)[place.column]
        : query.parameters[i],
    );
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}

/**
 * An insert into `table` built once per shape (`compiledRows`). `finish` adds what follows the
 * values (a conflict clause, a returning list) and must not depend on them.
 */
export function compiledInsert<T extends keyof Database & string, R>(
  table: T,
  finish: (query: InsertQueryBuilder<Database, T, InsertResult>) => Compilable<R>,
): (db: Kysely<Database>, rows: readonly Insertable<Database[T]>[]) => Promise<R[]> {
  const insert = compiledRows<{ rows: readonly Insertable<Database[T]>[] }, R>((db, { rows }) =>
    finish(db.insertInto(table).values(rows as never)),
  );
  return (db, rows) => insert(db, { rows });
}

/** The dialect a database speaks, from its Kysely adapter. */
export const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
