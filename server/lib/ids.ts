import { randomBytes, randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/** A new row id, random through and through: for rows whose id may be handed out. */
export const newId = (): string => randomUUID();

/**
 * A new id for the rows an alert writes by the thousand (alerts, deliveries, usage, timers,
 * positions): a UUIDv7, whose leading 48 bits are the time in ms, then 74 random bits. Random
 * ids land anywhere in a table's primary key and in every index they are part of, so each
 * commit writes a page per row and index; ids in time order (by their millisecond: within one,
 * in no order) land on the last pages of each. The time it carries is the row's own
 * `created_at`, shown anyway. Its random part is given, so uuid keeps no state between calls:
 * left to itself it carries a millisecond forward past the clock to keep its ids in order, and a
 * clock set back (a test's, a machine's) would get ids of a later time.
 */
export const orderedId = (): string => v7({ random: randomBytes(16) });

/** A URL-safe random secret of `bytes` random bytes from the CSPRNG (16 bytes = 128 bits). */
export const randomToken = (bytes = 24): string => randomBytes(bytes).toString('base64url');
