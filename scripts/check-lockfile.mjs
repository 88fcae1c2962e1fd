// Fails unless package-lock.json installs on Linux, macOS and Windows. A package with native
// builds (rolldown, biome, esbuild, ...) lists one optional package per platform; when the
// registry lacks some platform's build of the chosen version, `npm install` writes the edge
// without the package (a dangling edge), and a lock edited to drop those edges installs on Linux
// only. So: every optional edge must resolve, and a package with Linux builds must also have
// macOS and Windows ones. The cure is a version the registry serves for every platform (README,
// "Dependency notes"), never an edited lock.
import { readFileSync } from 'node:fs';

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
