// The freshness gate: every runtime and build dependency in package.json is at the latest major
// the registry publishes (its `latest` dist-tag; for 0.x, the latest minor), or is a row of
// README's "Held back" table that names the major it is held at, the latest one, why, and the
// issue upstream. Fails on a dependency behind and not in the table, and on a row that is no
// longer true (held at another major, a newer latest, or no longer behind at all).
//
//   node scripts/freshness.mjs [--root <dir>]      (registry: npm's configured one)
//
// It asks the registry only for each package's abbreviated metadata, so it works where the
// advisory service does not.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { root: { type: 'string' } } });
const root = path.resolve(values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const registry = (
  process.env.npm_config_registry || execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' })
)
  .trim()
  .replace(/\/?$/, '/');

/** The release line a version belongs to: its major, or its minor below 1.0. */
function line(version) {
  const [major, minor] = version.replace(/^[^\d]*/, '').split('.');
  return major === '0' ? `0.${minor}` : major;
}

/** README's held-back rows: | `name` | held at | latest | why | upstream |. */
function heldBack(readme) {
  const section = readme.split(/^#+ Held back\s*$/m)[1]?.split(/^#+ /m)[0] ?? '';
  const rows = new Map();
  for (const match of section.matchAll(/^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|/gm)) {
    const [, name, held, latest, why, upstream] = match.map((cell) => cell.trim());
    rows.set(name, { held, latest, why, upstream });
  }
  return rows;
}

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const rows = heldBack(readFileSync(path.join(root, 'README.md'), 'utf8'));
// A package of this repository (`file:`) has no registry version to be behind.
const deps = Object.fromEntries(
  Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([, spec]) => !spec.startsWith('file:')),
);

/** Tries of each registry request: a connection that timed out or a busy registry (429, 5xx) is asked again. */
const TRIES = 4;

async function fetchPackument(name) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const response = await fetch(`${registry}${name.replace('/', '%2f')}`, {
        headers: { accept: 'application/vnd.npm.install-v1+json' },
      });
      if ((response.status !== 429 && response.status < 500) || attempt === TRIES) return response;
    } catch (error) {
      if (attempt === TRIES) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
  }
}

async function latestOf(name) {
  const response = await fetchPackument(name);
  if (!response.ok) throw new Error(`${name}: the registry answered HTTP ${response.status}`);
  const latest = (await response.json())['dist-tags']?.latest;
  if (!latest) throw new Error(`${name}: the registry gives no latest version`);
  return latest;
}

const problems = [];
const held = [];
const results = await Promise.all(
  Object.entries(deps).map(async ([key, spec]) => {
    // An alias (`name: npm:real@range`) is judged by the package it installs.
    const real = spec.startsWith('npm:') ? spec.slice(4).replace(/@[^@]*$/, '') : key;
    const installed = lock.packages[`node_modules/${key}`]?.version;
    return { key, installed, latest: await latestOf(real) };
  }),
);
for (const { key, installed, latest } of results) {
  const row = rows.get(key);
  rows.delete(key);
  if (!installed) {
    problems.push(`${key}: not in package-lock.json`);
    continue;
  }
  const [have, newest] = [line(installed), line(latest)];
  if (have === newest) {
    if (row)
      problems.push(`${key}: README holds it back at ${row.held}, but ${installed} is the latest line; remove the row`);
    continue;
  }
  if (!row) {
    problems.push(`${key}: ${installed} is behind the latest ${latest}; update it or add a README "Held back" row`);
    continue;
  }
  if (row.held !== have) problems.push(`${key}: README says held at ${row.held}, the lock has ${installed}`);
  if (row.latest !== newest)
    problems.push(`${key}: README says the latest is ${row.latest}, the registry has ${latest}`);
  if (!row.why || !/^https?:\/\//.test(row.upstream.replace(/^.*\]\(|\)$/g, '')))
    problems.push(`${key}: the README row needs a reason and a link to the issue upstream`);
  held.push(`${key} ${have} (latest ${newest})`);
}
for (const name of rows.keys()) problems.push(`${name}: README holds it back, but it is not a dependency`);

console.log(`freshness: ${results.length} dependencies checked against ${registry}`);
if (held.length > 0) console.log(`freshness: held back, with reasons in README: ${held.join(', ')}`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`freshness: ${problem}`);
  process.exit(1);
}
console.log('freshness: every other dependency is at its latest major');
