import { randomFillSync, randomUUID } from 'node:crypto';

/** A new row id. */
export const newId = (): string => randomUUID();

/**
 * Random bytes drawn from the CSPRNG a pool at a time, as Node does for `randomUUID`: one call
 * per token cost more than the token (an alert takes several). Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;

/** A URL-safe random secret of `bytes` random bytes (16 bytes = 128 bits). */
export function randomToken(bytes = 24): string {
  if (bytes > pool.length) return randomFillSync(Buffer.alloc(bytes)).toString('base64url');
  if (next + bytes > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const token = pool.toString('base64url', next, next + bytes);
  next += bytes;
  return token;
}
