import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// server/features/accounts → the repository root → common/data.
const LIST = path.resolve(here, '../../../common/data/common-passwords.txt');

let cached: ReadonlySet<string> | undefined;

/** The 20,000 most common passwords (lowercased), read once from the list shipped in common/data. */
export function commonPasswords(): ReadonlySet<string> {
  cached ??= new Set(
    readFileSync(LIST, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  );
  return cached;
}
