import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-kept-secret-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A process that waits for the go file, then asks keptSecret for the secret, whose making takes a
// while (as the VAPID keys' may on a busy machine), and prints the one it got.
const CHILD = `
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { keptSecret } from ${JSON.stringify(path.join(root, 'server/lib/kept-secret.ts'))};
const [dataDir, go] = process.argv.slice(2);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
console.log('ready');
while (!existsSync(go)) pause(5);
const secret = keptSecret(dataDir, 'secret', {
  read: (text) => text.trim() || null,
  make: () => (pause(300), randomUUID()),
  write: (value) => value,
});
console.log(secret);
`;

/** Starts a process running CHILD; resolves once it is ready, with what it prints in the end. */
function child(script: string, dataDir: string, go: string) {
  const running = spawn(process.execPath, ['--import', 'tsx', script, dataDir, go], { cwd: root });
  let output = '';
  running.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const done = new Promise<string>((resolve, reject) =>
    running.on('exit', (code) => (code === 0 ? resolve(output.split('\n')[1] ?? '') : reject(new Error(output)))),
  );
  const ready = new Promise<void>((resolve) =>
    running.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.startsWith('ready\n')) resolve();
    }),
  );
  return { ready, done };
}

describe('a secret the server keeps in DATA_DIR', () => {
  it('is one secret for every process that starts at once on the same DATA_DIR (compose’s replicas share one volume)', async () => {
    const script = path.join(dir, 'child.mjs');
    writeFileSync(script, CHILD);
    const dataDir = path.join(dir, 'data');
    const go = path.join(dir, 'go');
    const children = Array.from({ length: 4 }, () => child(script, dataDir, go));
    await Promise.all(children.map((each) => each.ready));
    writeFileSync(go, '');
    const secrets = await Promise.all(children.map((each) => each.done));
    const kept = readFileSync(path.join(dataDir, 'secret'), 'utf8').trim();
    expect(kept).toMatch(/^[\da-f-]{36}$/);
    expect(secrets).toEqual(secrets.map(() => kept));
    expect(statSync(path.join(dataDir, 'secret')).mode & 0o777).toBe(0o600);
  }, 60_000);
});
