// Fails unless package-lock.json installs on Linux, macOS and Windows. A package with native
// builds (rolldown, biome, esbuild, ...) lists one optional package per platform; when the
// registry lacks some platform's build of the chosen version, `npm install` writes the edge
// without the package (a dangling edge), and a lock edited to drop those edges installs on Linux
// only. So: every optional edge must resolve, and a package with Linux builds must also have
// macOS and Windows ones. The cure is a version the registry serves for every platform (README,
// "Dependency notes"), never an edited lock.
//
// Then, where the packages are installed beside the lock (after `npm ci`), it fails when
// `npm install` would rewrite the lock, leaving a fresh clone modified. npm writes what it found
// installing into node_modules/.package-lock.json, in the lock's own terms (a package's
// `hasInstallScript` comes from the files it unpacked, which the registry does not always say);
// every package there must read the same in the lock. The cure is the lock npm writes, committed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const present = new Set(Object.keys(lock.packages));

/** True when `dep` resolves from the package at `key` the way Node looks it up. */
function resolves(key, dep) {
  let base = key;
  for (;;) {
    if (present.has(`${base ? `${base}/` : ''}node_modules/${dep}`)) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut >= 0 ? base.slice(0, cut) : '';
  }
}

const problems = [];
for (const [key, entry] of Object.entries(lock.packages)) {
  const systems = new Set();
  for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
    if (!resolves(key, dep)) problems.push(`${key || 'the project'}: ${dep} is listed but not held`);
    for (const os of lock.packages[`node_modules/${dep}`]?.os ?? []) systems.add(os);
  }
  if (!systems.has('linux')) continue;
  for (const os of ['darwin', 'win32'])
    if (!systems.has(os)) problems.push(`${key}: no ${os} build among its optional packages`);
}
if (problems.length > 0) {
  console.error(`check-lockfile: ${file} does not install everywhere:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-lockfile: ${file} holds every platform's optional packages`);

const installed = path.join(path.dirname(path.resolve(file)), 'node_modules/.package-lock.json');
if (existsSync(installed)) {
  const found = JSON.parse(readFileSync(installed, 'utf8')).packages;
  const rewritten = [];
  for (const [key, entry] of Object.entries(found)) {
    const locked = lock.packages[key];
    if (!locked) {
      rewritten.push(`${key}: installed, not in the lock`);
      continue;
    }
    for (const field of new Set([...Object.keys(entry), ...Object.keys(locked)])) {
      const [was, now] = [JSON.stringify(locked[field]), JSON.stringify(entry[field])];
      if (was !== now) rewritten.push(`${key}: ${field} ${was ?? 'absent'} in the lock, ${now ?? 'absent'} installed`);
    }
  }
  if (rewritten.length > 0) {
    console.error(
      `check-lockfile: \`npm install\` would rewrite ${file}: commit the lock it writes\n  ${rewritten.join('\n  ')}`,
    );
    process.exit(1);
  }
  console.log(`check-lockfile: \`npm install\` leaves ${file} as it is`);
}
