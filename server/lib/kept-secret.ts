import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A secret the server makes itself when none is configured (the JWT secret, the VAPID keys),
 * kept in DATA_DIR/`name` readable by the server's user only, so it survives restarts: the
 * stored one when `read` accepts it, else `make`'s, written as `write` spells it.
 */
export function keptSecret<T>(
  dataDir: string,
  name: string,
  codec: { read: (text: string) => T | null; make: () => T; write: (value: T) => string },
): T {
  const file = path.join(dataDir, name);
  try {
    const stored = codec.read(readFileSync(file, 'utf8'));
    if (stored !== null) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Owner only, like the database beside it (server/db/index.ts).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = codec.make();
  writeFileSync(file, `${codec.write(secret)}\n`, { mode: 0o600 });
  return secret;
}
