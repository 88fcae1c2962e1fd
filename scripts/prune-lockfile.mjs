// The package registry this project's machines reach serves only the linux-x64 builds
// of platform-specific packages (esbuild, rollup, biome, ...), so `npm install` writes a
// lock without the other platforms' optional packages while still listing them as
// optional dependencies, and `npm ci` then refuses the lock. This drops those dangling
// optional edges (never a package the lock holds), so `npm ci` installs exactly the lock.
import { readFileSync, writeFileSync } from 'node:fs';

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

let dropped = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const dep of Object.keys(entry.optionalDependencies)) {
    if (resolves(key, dep)) continue;
    delete entry.optionalDependencies[dep];
    dropped += 1;
  }
  if (Object.keys(entry.optionalDependencies).length === 0) delete entry.optionalDependencies;
}
if (dropped > 0) {
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`prune-lockfile: dropped ${dropped} optional packages this registry does not serve`);
}
