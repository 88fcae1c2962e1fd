// Compiles the server, and the common/ code it imports, into build/ (or the folder given with
// --outDir): plain JavaScript that `node build/server/index.js` runs in an install without the
// dev dependencies. Also copies the data files the server reads at run time (common/data).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--outDir');
const outDir = path.resolve(flag >= 0 ? (process.argv[flag + 1] ?? '') : path.join(root, 'build'));

rmSync(outDir, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    path.join(root, 'tsconfig.server.json'),
    '--outDir',
    outDir,
  ],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
cpSync(path.join(root, 'common/data'), path.join(outDir, 'common/data'), { recursive: true });
