// Runs the cross-engine browser suite (tests/engines/): Chromium through Playwright, WebKit
// through WebKitWebDriver and Firefox through WebDriver BiDi, against the built app in dist/
// (built first when missing). MiniBrowser needs a display: without one the suite runs under
// xvfb-run. Every engine is required; a missing one stops the run naming its Debian package.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

if (!existsSync(path.join(dist, 'index.html'))) {
  const built = run(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build']);
  if (built !== 0) process.exit(built);
}
const vitest = [
  path.join(root, 'node_modules/vitest/vitest.mjs'),
  'run',
  '--project',
  'engines',
  ...process.argv.slice(2),
];
process.exit(
  process.env.DISPLAY
    ? run(process.execPath, vitest)
    : run('xvfb-run', ['--auto-servernum', '--server-args=-screen 0 1280x1024x24', process.execPath, ...vitest]),
);
