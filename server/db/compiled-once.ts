import type { Compilable, CompiledQuery, Kysely } from 'kysely';
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
