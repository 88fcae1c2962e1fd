import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningUrl } from '../e2e/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

// `npm start` as a supervisor runs it, in a checkout whose web app is built (a stand-in dist/,
// so nothing is rebuilt): package.json's start script and scripts/start.mjs as they are, the
// server from its sources.
describe('npm start under a supervisor', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-start-'));
  let child: ChildProcess | undefined;

  afterAll(async () => {
    // Whatever is left of the process group, an orphaned server included.
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops the server when only `npm start` itself is sent SIGTERM, and exits once the server has', async () => {
    const app = path.join(dir, 'app');
    mkdirSync(path.join(app, 'scripts'), { recursive: true });
    mkdirSync(path.join(app, 'dist'));
    copyFileSync(path.join(root, 'package.json'), path.join(app, 'package.json'));
    copyFileSync(path.join(root, 'scripts/start.mjs'), path.join(app, 'scripts/start.mjs'));
    writeFileSync(path.join(app, 'dist/index.html'), '<!doctype html><title>Alerta</title>');
    for (const name of ['node_modules', 'server', 'common']) symlinkSync(path.join(root, name), path.join(app, name));

    const [command = 'npm', ...args] = npm;
    child = spawn(command, [...args, 'start'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, as a service manager gives it; only npm is signalled below.
      detached: true,
    });
    let output = '';
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    const url = await listeningUrl(child, 60_000).catch((error: Error) => {
      throw new Error(`npm start: ${error.message}:\n${output}`);
    });
    expect((await fetch(`${url}/api/health`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // npm waited for the server's own orderly stop, and nothing answers any more.
    expect(output).toContain('SIGTERM received: finishing in-flight requests');
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  }, 90_000);
});
