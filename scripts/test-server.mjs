// Runs the server integration suite on SQLite, then again on PostgreSQL when
// TEST_DATABASE_URL is set, each run printing its own counts. The build tests (tests/build/)
// touch no database: they run once, in the SQLite pass.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
const extra = process.argv.slice(2);
const runs = [['sqlite', []]];
if (process.env.TEST_DATABASE_URL) runs.push(['postgres', ['--exclude', 'tests/build/**']]);
else console.log('server suite: PostgreSQL run not started (TEST_DATABASE_URL is not set)');

for (const [db, only] of runs) {
  console.log(`\n=== server suite on ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ===`);
  const result = spawnSync(process.execPath, [vitest, 'run', '--project', 'server', ...only, ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TEST_DB: db },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
