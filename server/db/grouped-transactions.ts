import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from './index.js';
import type { Database, Db } from './schema.js';

/** Most pieces of work one commit carries: a long queue is cut into commits of this many. */
const MOST_PER_COMMIT = 32;

/** The savepoint around each piece of a commit, by its place: written once, not built for every piece. */
const SAVEPOINTS = Array.from({ length: MOST_PER_COMMIT }, (_, i) => ({
  open: CompiledQuery.raw(`savepoint work_${i}`),
  rollback: CompiledQuery.raw(`rollback to savepoint work_${i}`),
  release: CompiledQuery.raw(`release savepoint work_${i}`),
}));

interface Work<T = unknown> {
  run: (trx: Transaction<Database>) => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** The work waiting for the next commit, per database, and whether a commit is under way. */
const queues = new WeakMap<Kysely<Database>, { waiting: Work[]; committing: boolean }>();

/**
 * Runs `run` in a transaction shared with the other work queued in the same turn of the event
 * loop: one commit for all of them, each in a savepoint of its own, so a piece that throws is
 * rolled back alone and rejects alone, and each resolves only once the shared commit has
 * succeeded (if the commit fails, every piece rejects with its error). SQLite writes every page
 * a transaction touched at its commit, the costly part of storing an alert (docs/PERFORMANCE.md):
 * alerts pressed together are written together. A piece must be
 * what one transaction of its own would have done, and must not wait on anything but the
 * database while it runs (the transaction holds the connection).
 */
export function inGroupedTransaction<T>(db: Kysely<Database>, run: (trx: Transaction<Database>) => Promise<T>) {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(db);
    if (!queue) {
      queue = { waiting: [], committing: false };
      queues.set(db, queue);
    }
    // A commit under way takes what was queued meanwhile when it ends.
    if (queue.waiting.length === 0 && !queue.committing) setImmediate(() => void commitQueued(db));
    queue.waiting.push({ run, resolve, reject } as Work);
  });
}

/** Commits what is queued for `db`, at most MOST_PER_COMMIT at a time, until the queue is empty. */
async function commitQueued(db: Kysely<Database>): Promise<void> {
  const queue = queues.get(db);
  if (!queue || queue.committing) return;
  queue.committing = true;
  while (queue.waiting.length > 0) {
    const taken = queue.waiting.splice(0, MOST_PER_COMMIT);
    const group = taken;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    // A piece's error after which the savepoint could not be rolled back: SQLite has rolled back
    // the whole transaction itself (a full disk, an I/O error). Every piece is answered with it,
    // not with the error of the rollback that follows.
    let fatal: { error: unknown } | undefined;
    try {
      await db.transaction().execute(async (trx) => {
        for (const [i, work] of group.entries()) {
          const savepoint = SAVEPOINTS[i] as (typeof SAVEPOINTS)[number];
          await trx.executeQuery(savepoint.open);
          let outcome: (typeof outcomes)[number];
          try {
            outcome = { ok: true, value: await work.run(trx) };
          } catch (error) {
            try {
              await trx.executeQuery(savepoint.rollback);
            } catch {
              fatal = { error };
              throw error;
            }
            outcome = { ok: false, error };
          }
          await trx.executeQuery(savepoint.release);
          outcomes[i] = outcome;
        }
      });
    } catch (error) {
      for (const work of group) work.reject(fatal ? fatal.error : error);
      continue;
    }
    group.forEach((work, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) work.resolve(outcome.value);
      else work.reject(outcome?.error);
    });
  }
  queue.committing = false;
}

/**
 * True where the writes of one turn share a commit (SQLite); PostgreSQL's pool commits side by
 * side, each write in a transaction of its own.
 */
export const groupsWrites = (dialect: Dialect): boolean => dialect === 'sqlite';

/** A write transaction: shared with the other writes of its turn where `groupsWrites`, else its own. */
export function inWriteTransaction<T>(
  db: Kysely<Database>,
  dialect: Dialect,
  run: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return groupsWrites(dialect) ? inGroupedTransaction(db, run) : db.transaction().execute(run);
}

/** Runs `work` in `db`'s transaction when it is one, else in a new transaction of its own. */
export const inTransaction = <T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> =>
  db.isTransaction ? work(db) : db.transaction().execute(work);
