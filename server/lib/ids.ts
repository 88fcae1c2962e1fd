import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/** A new row id, random through and through: for rows whose id may be handed out. */
export const newId = (): string => randomUUID();

/**
 * A new id for the rows an alert writes by the thousand (alerts, deliveries, usage, jobs,
 * positions): a UUIDv7, whose leading 48 bits are the time in ms, then 74 random bits. Random
 * ids land anywhere in a table's primary key and in every index they are part of, so each
 * commit writes a page per row and index; ids in time order (by their millisecond: within one,
 * in no order) land on the last pages of each. The time it carries is the row's own
 * `created_at`, shown anyway. Its random part is given, so uuid keeps no state between calls:
 * left to itself it carries a millisecond forward past the clock to keep its ids in order, and a
 * clock set back (a test's, a machine's) would get ids of a later time.
 */
export const orderedId = (): string => v7({ random: random16() });

/** Random bytes drawn from the CSPRNG a pool at a time, as `randomUUID` does: one call per 256 ids. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let drawn = 0;

/** The next 16 bytes of the pool, filled again once used up; uuid copies them into the id. */
function random16(): Uint8Array {
  if (drawn + 16 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    drawn = 0;
  }
  drawn += 16;
  return pool.subarray(drawn - 16, drawn);
}

/** A URL-safe random secret of `bytes` random bytes from the CSPRNG (16 bytes = 128 bits). */
export const randomToken = (bytes = 24): string => randomBytes(bytes).toString('base64url');
