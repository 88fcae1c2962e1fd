import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { seedUser } from '../e2e/seed.js';
import { listeningUrl, OUTBOX_KEY } from '../e2e/server.js';
import { dbKind } from './helper.js';

// The real server as `npm start` runs it, in a process of its own with a file limit, for the
// tests of what a flood of connections or streams does to it (dos-*.test.ts).

const root = path.resolve(import.meta.dirname, '../..');

export interface LimitedServer {
  port: number;
  child: ChildProcess;
  /** What the process wrote on stderr (a crash's stack). */
  stderr(): string;
  stop(): Promise<void>;
}

/** A fresh database for the process: a new SQLite file in its DATA_DIR, or a new PostgreSQL database. */
async function freshDatabaseUrl(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  if (dbKind === 'sqlite') return { url: undefined, drop: async () => {} };
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `alerta_dos_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Starts `server/index.ts` under `ulimit -n fileLimit` (the shell's own limit when omitted). */
export async function startLimitedServer(env: Record<string, string>, fileLimit?: number): Promise<LimitedServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-dos-'));
  const database = await freshDatabaseUrl();
  const limit = fileLimit ? `ulimit -n ${fileLimit}; ` : '';
  const child = spawn(
    'bash',
    ['-c', `${limit}exec "$@"`, 'bash', process.execPath, '--import', 'tsx', 'server/index.ts'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        ALERTA_DIST_DIR: path.join(dataDir, 'no-dist'),
        JWT_SECRET: 'dos-tests-secret-long-enough-for-hs256-signing',
        DEV_OUTBOX_KEY: OUTBOX_KEY,
        // The start line, which names the bound port, is logged at info.
        LOG_LEVEL: 'info',
        // The machine running the tests is busy with other work: no shedding on the event loop's
        // delay here (overload*.test.ts tests it), so a slow moment cannot refuse the set-up.
        OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
        ...(database.url ? { DATABASE_URL: database.url } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const url = await listeningUrl(child).catch((error: Error) => {
    throw new Error(`${error.message}\n${stderr}`);
  });
  return {
    port: Number(new URL(url).port),
    child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own from the local address `from` (127.x.y.z). */
export function call(
  port: number,
  method: string,
  target: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An owner with a paid plan, contacts and a device key for the emergency page: the owner's proof. */
export async function ownerWithProof(port: number, contacts: { name: string; phone_number: string }[]) {
  const base = `http://127.0.0.1:${port}`;
  const seeded = await seedUser(base, { contacts, countdownSeconds: 0 });
  const login = await call(port, 'POST', '/api/users/auth/login/', {
    body: { username: seeded.username, password: 'correct horse 42' },
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${login.body}`);
  const { access } = JSON.parse(login.body) as { access: string };
  const key = await call(port, 'POST', '/api/users/me/device-keys/', {
    headers: { authorization: `Bearer ${access}` },
    body: {},
  });
  if (key.status !== 201) throw new Error(`device key: ${key.status} ${key.body}`);
  return { token: seeded.token, deviceKey: (JSON.parse(key.body) as { device_key: string }).device_key };
}

/** A real alert, with the owner's device key when given (a proven alert), from `from`. */
export const sendAlert = (port: number, token: string, options: { deviceKey?: string; from?: string } = {}) =>
  call(port, 'POST', `/api/emergency/public/${token}/alerts/`, {
    from: options.from,
    headers: {
      'idempotency-key': randomUUID(),
      ...(options.deviceKey ? { 'x-alerta-device-key': options.deviceKey } : {}),
    },
    body: {
      mode: 'real',
      location: { latitude: 38.7223, longitude: -9.1393, accuracy: 10, captured_at: new Date().toISOString() },
    },
  });

/** A raw connection from `from` that has written `text` and keeps what comes back. */
export interface Held {
  socket: Socket;
  received: () => string;
  /** Resolves once the server has closed it. */
  closed: Promise<void>;
  isClosed: () => boolean;
}

export function hold(port: number, text: string, from = '127.0.0.1'): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    let received = '';
    let isClosed = false;
    const closed = new Promise<void>((done) =>
      socket.once('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.off('error', reject);
      if (text) socket.write(text);
      resolve({ socket, received: () => received, closed, isClosed: () => isClosed });
    });
    socket.once('error', reject);
  });
}

/** Waits until `done()` holds, checking every 50 ms; throws after `ms`. */
export async function until(what: string, done: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
