import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The secret stored in `file` when `read` accepts it; null when there is none or it is unusable. */
function stored<T>(file: string, read: (text: string) => T | null): T | null {
  try {
    return read(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return null;
  }
}

/**
 * A secret the server makes itself when none is configured (the JWT secret, the VAPID keys),
 * kept in DATA_DIR/`name` readable by the server's user only, so it survives restarts: the
 * stored one when `read` accepts it, else `make`'s, written as `write` spells it. Processes
 * starting together on one DATA_DIR (compose's replicas share a volume) all get the first one
 * written: it appears whole, by a link that fails where another process's is there already.
 */
export function keptSecret<T>(
  dataDir: string,
  name: string,
  codec: { read: (text: string) => T | null; make: () => T; write: (value: T) => string },
): T {
  const file = path.join(dataDir, name);
  const kept = stored(file, codec.read);
  if (kept !== null) return kept;
  // Owner only, like the database beside it (server/db/index.ts).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = codec.make();
  const draft = `${file}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${codec.write(secret)}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = stored(file, codec.read);
      if (theirs !== null) return theirs;
    }
    // What is there is unusable, or the file system has no links: this one replaces it.
    renameSync(draft, file);
    return secret;
  } finally {
    rmSync(draft, { force: true });
  }
}
