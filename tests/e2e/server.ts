import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  /** Stops the process and, unless `keepData`, deletes its data directory. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  /** Listen on this port (a restart on the same address); one the system picks by default. */
  port?: number;
  /** Use this data directory (a restart keeps the database); a new temporary one by default. */
  dataDir?: string;
}

/** The dev outbox's key on every server the tests start (each start makes a random one otherwise). */
export const OUTBOX_KEY = 'tests-read-the-outbox-with-this-key';

/** The dev outbox's messages as JSON, with the key. */
export const outboxJsonPath = `/dev/outbox.json?key=${OUTBOX_KEY}`;

/** The start line's bound address: "… (listening on http://127.0.0.1:41234) …". */
const LISTENING = /\(listening on (https?:\/\/[^\s)]+)\)/;

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
      const found = seen.match(LISTENING);
      if (found?.[1]) done(null, found[1]);
    };
    const onExit = (code: number | null) => done(new Error(`server exited with code ${code} before listening`));
    const deadline = setTimeout(() => done(new Error(`server not listening within ${timeoutMs} ms`)), timeoutMs);
    stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** pino's level for warnings: a started test server echoes its log lines from this level up. */
const WARN = 40;

/**
 * Starts the built server (`dist/` must exist) with a temporary DATA_DIR, on a port the system
 * picks (PORT=0) unless `options.port`, and waits for its start line, logged once it listens.
 * APP_URL is left to its default, which names the bound port, as `url` does.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'alerta-e2e-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      PORT: String(options.port ?? 0),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      APP_URL: '',
      DATABASE_URL: '',
      DEV_OUTBOX_KEY: OUTBOX_KEY,
      ...env,
      // The start line, which names the bound address, is logged at info.
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    function fail(error: Error) {
      clearTimeout(deadline);
      child.kill('SIGKILL');
      reject(error);
    }
    const deadline = setTimeout(() => fail(new Error('server not listening within 30 s')), 30_000);
    const onExit = (code: number | null) => fail(new Error(`server exited with code ${code} before listening`));
    child.once('exit', onExit);
    // Every line is read, so the pipe never fills; warnings and errors go to the test's output,
    // the request log (info) does not.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const found = line.match(LISTENING);
      if (found?.[1]) {
        clearTimeout(deadline);
        child.off('exit', onExit);
        resolve(Number(new URL(found[1]).port));
      }
      let level = WARN;
      try {
        level = (JSON.parse(line) as { level?: number }).level ?? WARN;
      } catch {
        // Not a log record: echoed.
      }
      if (level >= WARN) console.log(line);
    });
  });
  return {
    // The host APP_URL names by default, so pages and the links the server mails share an origin.
    url: `http://localhost:${port}`,
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
