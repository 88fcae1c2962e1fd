import { randomFillSync, randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/** A new row id, random through and through: for rows whose id may be handed out. */
export const newId = (): string => randomUUID();

/**
 * A new id for the rows an alert writes by the thousand (alerts, deliveries, usage, timers,
 * positions): a UUIDv7, whose leading 48 bits are the time in ms, then 74 random bits. Random
 * ids land anywhere in a table's primary key and in every index they are part of, so each
 * commit wrote a page per row and index; ids in time order (by their millisecond: within one,
 * in no order) land on the last pages of each, and SQLite's commit of a busy second's alerts
 * cost 40 % less (docs/PERFORMANCE.md). The time it carries is the row's own `created_at`,
 * shown anyway.
 */
export const orderedId = (): string => v7({ random: pooled(16) });

/**
 * Random bytes drawn from the CSPRNG a pool at a time, as Node does for `randomUUID`: one call
 * per token cost more than the token (an alert takes several). Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;

/** `bytes` unused bytes of the pool (at most its size), valid until the next call. */
function pooled(bytes: number): Buffer {
  if (next + bytes > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += bytes;
  return pool.subarray(next - bytes, next);
}

/** A URL-safe random secret of `bytes` random bytes (16 bytes = 128 bits). */
export function randomToken(bytes = 24): string {
  if (bytes > pool.length) return randomFillSync(Buffer.alloc(bytes)).toString('base64url');
  return pooled(bytes).toString('base64url');
}
