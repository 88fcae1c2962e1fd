// Runs the cross-engine browser suite (tests/engines/): Chromium through Playwright, WebKit
// through WebKitWebDriver and Firefox through WebDriver BiDi, against the built app in dist/
// (built first when missing). MiniBrowser needs a display: without one the suite runs under
// xvfb-run. Every engine is required; a missing one stops the run naming its Debian package.
//
// WebKit runs first, alone, then Chromium and Firefox side by side: one Vitest process per engine,
// keeping the suites named "… on <engine>" (`-t`). An engine's tests spend most of their time
// waiting (on a server restarting, a retry, a watch window), so two at once take little longer
// than one; but WebKit's service worker has been seen to miss its cache with the server stopped
// when it shared the two cores with another engine, so it gets the machine to itself. Each
// engine's output is printed whole when it ends; the last line counts every test, and the run
// fails unless each test ran in exactly one engine's process and passed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = process.env.ALERTA_DIST_DIR ?? path.join(root, 'dist');
const required = [
  [process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', 'chromium'],
  [process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr', 'firefox-esr'],
  [process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver', 'webkit2gtk-driver'],
  [process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', 'webkit2gtk-driver'],
];
/** The engines of tests/engines/, whose suites are named "… on <engine>": each round's side by side. */
const ROUNDS = [['webkit'], ['chromium', 'firefox']];
/**
 * Each engine's own Vitest arguments. WebKitGTK's service worker has been seen, on a loaded
 * machine, to lose its precache with the server stopped (the navigation failed with
 * "FetchEvent.respondWith received an error: TypeError: Load failed", or the page's scripts never
 * loaded) or never to take control, and then to stay broken for the rest of that browser's life:
 * a WebKit test that fails runs once more, on a fresh engine (each test launches its own,
 * tests/engines/suite.ts), and one that fails twice fails the run. The output marks a test
 * that needed its second try ("retry x1").
 */
const ENGINE_ARGS = { webkit: ['--retry', '1'] };

const missing = required.filter(([file]) => !existsSync(file));
const display = process.env.DISPLAY || existsSync('/usr/bin/xvfb-run');
if (missing.length > 0 || !display) {
  const packages = [...new Set([...missing.map(([, pkg]) => pkg), ...(display ? [] : ['xvfb'])])];
  console.error(
    `Browser engines missing (${missing.map(([file]) => file).join(', ') || 'a display'}): ` +
      `install them with "apt-get update && apt-get install -y ${packages.join(' ')}".`,
  );
  process.exit(1);
}

const run = (command, args, env = {}) =>
  spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

// One display for the three engines: this script again, under xvfb-run.
if (!process.env.DISPLAY) {
  process.exit(
    run('xvfb-run', [
      '--auto-servernum',
      '--server-args=-screen 0 1280x1024x24',
      process.execPath,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ]),
  );
}

if (!existsSync(path.join(dist, 'index.html'))) {
  const built = run(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build']);
  if (built !== 0) process.exit(built);
}

// A name filter of the caller's (`-- -t webkit`): that selection, in one Vitest process.
const extra = process.argv.slice(2);
if (extra.some((arg) => arg === '-t' || arg.startsWith('--testNamePattern'))) {
  process.exit(
    run(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'engines', ...extra]),
  );
}

const reports = mkdtempSync(path.join(os.tmpdir(), 'alerta-engines-'));

/** One engine's Vitest run; resolves with its exit code and everything it printed. */
function runEngine(engine) {
  const report = path.join(reports, `${engine}.json`);
  const args = [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--project',
    'engines',
    '--testNamePattern',
    `\\bon ${engine}\\b`,
    '--hideSkippedTests',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...(ENGINE_ARGS[engine] ?? []),
    ...extra,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => resolve({ engine, report, code: code ?? (signal ? 1 : 0), output }));
  });
}

console.log(
  `engines: ${ROUNDS.map((round) => round.join(' and ')).join(', then ')}; each prints its results when it ends`,
);
const results = [];
for (const round of ROUNDS) {
  await Promise.all(
    round.map(async (engine) => {
      const result = await runEngine(engine);
      console.log(`\n=== ${engine} ===`);
      process.stdout.write(Buffer.concat(result.output));
      results.push(result);
    }),
  );
}

// Every test, by name: in which engine's run it ran, and how it ended.
const ran = new Map();
let unreadable = false;
for (const { engine, report } of results) {
  if (!existsSync(report)) {
    console.error(`engines: ${engine} wrote no report (${report})`);
    unreadable = true;
    continue;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
  for (const file of json.testResults) {
    for (const test of file.assertionResults) {
      const seen = ran.get(test.fullName) ?? [];
      if (test.status !== 'skipped' && test.status !== 'pending') seen.push({ engine, status: test.status });
      ran.set(test.fullName, seen);
    }
  }
}
rmSync(reports, { recursive: true, force: true });

const notRun = [...ran].filter(([, seen]) => seen.length !== 1).map(([name]) => name);
const passed = [...ran.values()].filter((seen) => seen.length === 1 && seen[0].status === 'passed').length;
const failed = ran.size - passed;
for (const name of notRun) console.error(`engines: not run by exactly one engine: ${name}`);
console.log(`\nengines: ${passed} passed, ${failed} failed`);
const exitCodes = results.map((result) => result.code);
process.exit(unreadable || notRun.length > 0 || failed > 0 || ran.size === 0 ? 1 : Math.max(0, ...exitCodes));
