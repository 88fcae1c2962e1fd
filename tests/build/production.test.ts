import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl } from '../e2e/server.js';
import { buildApp } from './built-app.js';

const root = path.resolve(import.meta.dirname, '../..');
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

/**
 * better-sqlite3 12 (installed as `better-sqlite3-node20`; 13 ships its binaries) has an install
 * script (`prebuild-install || node-gyp rebuild`) that looks for a prebuilt binary before
 * compiling SQLite, which takes minutes here. Hand it the binary this checkout already built,
 * under the name it would download, so the install runs its scripts in seconds.
 */
function localPrebuild(dir: string): Record<string, string> {
  const pkg = path.join(root, 'node_modules/better-sqlite3-node20');
  const binary = path.join(pkg, 'build/Release/better_sqlite3.node');
  if (!existsSync(binary)) return {};
  const { version } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-czf', path.join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

// The production install starts on its embedded SQLite; like every build test it runs once,
// in the server suite's SQLite pass (scripts/test-server.mjs).
describe('production install: npm ci --omit=dev over the build', () => {
  let dir: string;
  let server: ChildProcess | undefined;
  let url: string;
  let output = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-production-'));
    const app = path.join(dir, 'app');
    // What `npm run build` writes: the web app in dist/ and the compiled server in build/.
    mkdirSync(app);
    renameSync(await buildApp(), path.join(app, 'dist'));
    execFileSync(process.execPath, [path.join(root, 'scripts/build-server.mjs'), '--outDir', path.join(app, 'build')], {
      cwd: root,
      stdio: 'pipe',
    });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(root, file), path.join(app, file));
    mkdirSync(path.join(app, 'scripts'));
    copyFileSync(path.join(root, 'scripts/start.mjs'), path.join(app, 'scripts/start.mjs'));

    const [command = 'npm', ...args] = npm;
    execFileSync(command, [...args, 'ci', '--omit=dev', '--ignore-scripts=false', '--no-audit', '--no-fund'], {
      cwd: app,
      env: { ...process.env, ...localPrebuild(path.join(dir, 'prebuilds')) },
      stdio: 'pipe',
      timeout: 240_000,
    });

    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir };
    server = spawn(command, [...args, 'start'], {
      cwd: app,
      // Port 0: the server gets a port from the system and names it in its start line.
      env: { ...env, NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(dir, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npm, the start script and the server it runs stop together.
      detached: true,
    });
    server.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    server.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    url = await listeningUrl(server).catch((error: Error) => {
      throw new Error(`npm start: ${error.message}:\n${output}`);
    });
  }, 360_000);

  // npm start exits once the server has stopped in order, which may take its whole shutdown delay.
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      if (server.pid) process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('installs no build tools', () => {
    const modules = path.join(dir, 'app/node_modules');
    // (TypeScript does come along: npm installs it as an optional peer of i18next; nothing runs it.)
    for (const tool of ['vite', 'vite-plugin-pwa', '@vitejs/plugin-react', 'tsx', 'vitest', '@biomejs/biome'])
      expect(existsSync(path.join(modules, tool)), tool).toBe(false);
    expect(existsSync(path.join(modules, 'fastify'))).toBe(true);
  });

  it('runs the compiled server and answers the API, the app and the emergency page', async () => {
    const health = await fetch(`${url}/api/health`);
    expect(await health.json()).toMatchObject({ status: 'ok', db: 'ok' });

    const home = await fetch(`${url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root">');

    const emergency = await fetch(`${url}/public/${'a'.repeat(22)}/`);
    expect(emergency.status).toBe(200);
    expect(await emergency.text()).toContain('/assets/alert-');

    // The password list (common/data), argon2 and better-sqlite3 work in the install.
    const register = (password: string) =>
      fetch(`${url}/api/users/registration/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          username: 'prod',
          email: 'prod@example.com',
          password1: password,
          password2: password,
          accept_terms: true,
        }),
      });
    const common = (await (await register('password1')).json()) as { password1?: string[] };
    expect(common.password1).toContain('This password is too common.');
    expect((await register('a long and unusual passphrase 7')).status).toBe(201);
  });
});
