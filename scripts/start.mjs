// `npm start`: builds the web app when the build is missing or older than its sources,
// then runs the server (production build + API) on PORT with the embedded defaults.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = [
  'src',
  'sw',
  'common',
  'public',
  'index.html',
  'alert.html',
  'live.html',
  'vite.config.ts',
  'package-lock.json',
];
const STAMP = path.join(root, 'dist', 'index.html');

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

const builtAt = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const changedAt = Math.max(...SOURCES.map((entry) => newestMtime(path.join(root, entry))));
if (builtAt < changedAt) {
  console.log(builtAt ? 'alerta: sources changed, rebuilding the web app…' : 'alerta: building the web app…');
  const build = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'server/index.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: { NODE_ENV: 'production', ...process.env },
});
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
