import { createHash } from 'node:crypto';
import pg from 'pg';

/** Texts remembered at most, sent once or named; the ones sent once start over when full (texts made of lists of values vary). */
const MAX_TEXTS = 5_000;
/** Statements prepared on one connection at most; later ones are sent as before. */
const MAX_PER_CONNECTION = 200;
/**
 * What PostgreSQL answers when a prepared statement no longer fits the schema ("cached plan
 * must not change result type" after a migration added a column) or has gone: that connection
 * sends its statements unprepared from then on.
 */
const STALE = new Set(['0A000', '26000']);

/**
 * The client class for a pool that prepares the statements its connections send again and
 * again. PostgreSQL parses, analyses and plans every unnamed statement it is sent; for the alert
 * route's statements that was a third of the database's time on them (pg_stat_statements, the
 * regional disaster). A text sent more than once becomes a named statement on each connection
 * that sends it, so PostgreSQL parses it once there and may keep one plan for it. Only statements
 * with values are named (the ones without go by the simple protocol), and each connection holds a
 * bounded number of them.
 */
export function preparingClient(): typeof pg.Client {
  const sentOnce = new Set<string>();
  const names = new Map<string, string>();
  /** The text's statement name from its second sending on; null the first time. */
  const nameOf = (text: string): string | null => {
    const known = names.get(text);
    if (known) return known;
    if (!sentOnce.delete(text)) {
      if (sentOnce.size >= MAX_TEXTS) sentOnce.clear();
      sentOnce.add(text);
      return null;
    }
    const name = `a${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (names.size < MAX_TEXTS) names.set(text, name);
    return name;
  };
  return class PreparingClient extends pg.Client {
    readonly #prepared = new Set<string>();
    #plain = false;

    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this one passes each through.
    override query(text: any, values?: any, callback?: any): any {
      if (this.#plain || typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || callback) {
        return super.query(text, values, callback);
      }
      const name = nameOf(text);
      if (!name || (!this.#prepared.has(name) && this.#prepared.size >= MAX_PER_CONNECTION)) {
        return super.query(text, values);
      }
      this.#prepared.add(name);
      return super.query({ name, text, values }).catch((error: unknown) => {
        if (STALE.has((error as { code?: string }).code ?? '')) this.#plain = true;
        throw error;
      });
    }
  };
}
