import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3 for the Node that runs us. 13 is the release for Node 22 and later (12 aborts
 * there when a statement is collected during shutdown, WiseLibs/better-sqlite3#1515); 13 crashes
 * on Node 20, which still gets 12, installed under the alias `better-sqlite3-node20`. Both expose
 * the same API, so the rest of the server sees one constructor.
 */
const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

const name = major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
/** Where that package is, for a worker thread that opens the same file (sqlite-checkpoints.ts). */
export const SQLITE_MODULE = require.resolve(name);
export const SQLite: typeof BetterSqlite3 = require(SQLITE_MODULE);
export type SQLiteDatabase = BetterSqlite3.Database;
