import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  /** Stops the process and, unless `keepData`, deletes its data directory. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  /** Listen on this port (a restart on the same address); a free one by default. */
  port?: number;
  /** Use this data directory (a restart keeps the database); a new temporary one by default. */
  dataDir?: string;
}

/** The dev outbox's key on every server the tests start (each start makes a random one otherwise). */
export const OUTBOX_KEY = 'tests-read-the-outbox-with-this-key';

/** The dev outbox's messages as JSON, with the key. */
export const outboxJsonPath = `/dev/outbox.json?key=${OUTBOX_KEY}`;

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The address a server started with PORT=0 listens on, read from its start line ("… (listening
 * on http://127.0.0.1:41234) …"), which it logs at LOG_LEVEL info once the port is bound. Its
 * stdout must be piped; it keeps flowing afterwards so the pipe never fills.
 */
export function listeningUrl(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  const stdout = child.stdout;
  if (!stdout) return Promise.reject(new Error("the server's stdout is not piped"));
  return new Promise((resolve, reject) => {
    let seen = '';
    const done = (error: Error | null, url?: string) => {
      clearTimeout(deadline);
      stdout.off('data', onData);
      child.off('exit', onExit);
      stdout.resume();
      if (error) reject(error);
      else resolve(url as string);
    };
    const onData = (chunk: Buffer) => {
      seen += String(chunk);
      const found = seen.match(/\(listening on (https?:\/\/[^\s)]+)\)/);
      if (found?.[1]) done(null, found[1]);
    };
    const onExit = (code: number | null) => done(new Error(`server exited with code ${code} before listening`));
    const deadline = setTimeout(() => done(new Error(`server not listening within ${timeoutMs} ms`)), timeoutMs);
    stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Starts the built server (`dist/` must exist) on a free port with a temporary
 * DATA_DIR and waits until /api/health answers.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'alerta-e2e-'));
  const url = `http://localhost:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      APP_URL: url,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      DEV_OUTBOX_KEY: OUTBOX_KEY,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    port,
    dataDir,
    async stop({ keepData = false } = {}) {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
