/** Socket errors of a database connection that is down, refusing or cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** pg's own texts for a pool that cannot reach or lost the server. */
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)/i;
/** SQLite failures of the file rather than of the query: locked too long, disk full, read-only, I/O. */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN)/;

/**
 * True when an error means the database is unavailable for now (down, restarting, cut
 * off, locked, out of space) rather than that the request or the code is wrong: the
 * answer is a 503 the client may retry, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLITE_CODES.test(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, restart), 53300 (too many connections).
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return true;
  }
  return typeof message === 'string' && PG_MESSAGES.test(message);
}
