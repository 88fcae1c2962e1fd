// `npm start`: serves the built web app and the API on PORT with the embedded defaults.
// - Where the dev dependencies are installed (`npm install`), it first rebuilds the web app when
//   dist/ is missing or older than its sources, then runs the server from its TypeScript sources
//   through tsx, as on a laptop.
// - In a production install (`npm ci --omit=dev` over the output of `npm run build`), it runs the
//   compiled server, build/server/index.js, serving dist/.
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
  'scripts/vite-plugins.ts',
  'scripts/prerender-pages.ts',
  'package-lock.json',
];
const STAMP = path.join(root, 'dist', 'index.html');
const VITE = path.join(root, 'node_modules/vite/bin/vite.js');
const fromSources =
  existsSync(path.join(root, 'node_modules/tsx/package.json')) && existsSync(path.join(root, 'server/index.ts'));

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

const builtAt = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (existsSync(VITE) && existsSync(path.join(root, 'src'))) {
  const changedAt = Math.max(...SOURCES.map((entry) => newestMtime(path.join(root, entry))));
  if (builtAt < changedAt) {
    console.log(builtAt ? 'alerta: sources changed, rebuilding the web app…' : 'alerta: building the web app…');
    const build = spawnSync(process.execPath, [VITE, 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
} else if (!builtAt) {
  console.error('alerta: dist/ is missing: run `npm run build` where the dev dependencies are installed.');
  process.exit(1);
}

const compiled = path.join(root, 'build/server/index.js');
if (!fromSources && !existsSync(compiled)) {
  console.error('alerta: build/server is missing: run `npm run build` where the dev dependencies are installed.');
  process.exit(1);
}
const server = spawn(
  process.execPath,
  fromSources ? ['--import', 'tsx', path.join(root, 'server/index.ts')] : [compiled],
  // NODE_ENV is left as the operator set it: `production` turns the dev outbox off, and nothing
  // else in the server reads it (the web app's build sets its own mode).
  { cwd: root, stdio: 'inherit' },
);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
