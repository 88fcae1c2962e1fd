import { randomBytes, randomUUID } from 'node:crypto';

/** A new row id. */
export const newId = (): string => randomUUID();

/** A URL-safe random secret of `bytes` random bytes (16 bytes = 128 bits). */
export const randomToken = (bytes = 24): string => randomBytes(bytes).toString('base64url');
