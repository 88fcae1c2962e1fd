import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { SQLite } from '../../server/db/sqlite-driver.js';
import { listeningUrl, OUTBOX_KEY, outboxJsonPath } from '../e2e/server.js';
import { alertSms, expectAllSentOnce, sendAlert, subscriber } from './faults/world.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SECRET = 'process-test-secret-long-enough-for-hs256';

/** The real server (`server/index.ts` under tsx), as `npm start` runs it. */
function spawnServer(env: Record<string, string>): { child: ChildProcess; output: () => { out: string; err: string } } {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEV_OUTBOX_KEY: OUTBOX_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  return { child, output: () => ({ out, err }) };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode)
      : child.once('exit', (code) => resolve(code)),
  );

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Each case is its own process; they run side by side to keep the suite short.
describe.concurrent('start-up faults: one clear error, exit code 1', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-start-'));
    writeFileSync(path.join(dir, 'a-file'), 'not a directory');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['DATA_DIR under a file', { DATA_DIR: '/proc/version/x' }, /^alerta: Cannot prepare DATA_DIR: .*ENOTDIR/],
    ['DATA_DIR is a file', { DATA_DIR: 'A_FILE' }, /^alerta: Cannot prepare DATA_DIR: /],
    ['DATA_DIR not writable', { DATA_DIR: '/proc/self' }, /^alerta: Cannot prepare DATA_DIR: /],
    [
      'DATA_DIR unusable with JWT_SECRET set',
      { DATA_DIR: '/proc/version/x', JWT_SECRET: SECRET },
      /^alerta: cannot start: .*ENOTDIR/,
    ],
    [
      'database unreachable',
      { DATA_DIR: 'TMP', DATABASE_URL: 'postgres://postgres@127.0.0.1:9/nowhere', JWT_SECRET: SECRET },
      /^alerta: cannot start: /,
    ],
    ['bad setting', { DATA_DIR: 'TMP', PORT: 'eighty' }, /^alerta: Invalid configuration: PORT must be a port number/],
  ] as const)(
    '%s',
    // Six real processes start at once, each compiling the server under tsx: on two busy cores that
    // can take longer than the suite's 30 s.
    { timeout: 90_000 },
    async (_name, env, pattern) => {
      const resolved = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, v === 'A_FILE' ? path.join(dir, 'a-file') : v === 'TMP' ? dir : v]),
      );
      const { child, output } = spawnServer({ PORT: '0', ...resolved });
      expect(await exited(child)).toBe(1);
      const { out, err } = output();
      const lines = err.trim().split('\n');
      expect(lines, err).toHaveLength(1);
      expect(lines[0]).toMatch(pattern);
      expect(`${out}${err}`).not.toMatch(/\n\s+at /);
      expect(err).not.toContain(SECRET);
    },
  );
});

describe('server killed with SIGKILL mid-dispatch', () => {
  let dataDir: string;
  let running: ChildProcess | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-kill-'));
  });
  afterAll(async () => {
    running?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes the deliveries the dead process had claimed and the ones it never started, once each', async () => {
    // Port 0: each process gets a port from the system and names it in its start line.
    const env = { PORT: '0', DATA_DIR: dataDir, JWT_SECRET: SECRET, ALERTA_DIST_DIR: dataDir, LOG_LEVEL: 'info' };
    const first = spawnServer(env);
    running = first.child;
    await listeningUrl(first.child);

    // The state a process leaves when killed mid-dispatch: an alert committed with its
    // deliveries and their jobs, two already taken under a lease (being sent), one not yet started.
    const db = new SQLite(path.join(dataDir, 'alerta.sqlite'));
    const now = Date.now();
    const userId = randomUUID();
    db.prepare(
      `insert into users (id, username, email, password_hash, email_verified, language, alert_countdown_seconds, token, trial_used_at, password_changed_at, created_at)
       values (?, 'killed', null, '$argon2id$v=19$m=19456,t=2,p=1$x$y', 1, 'pt', 5, 'tokentokentokentokentoken', null, ?, ?)`,
    ).run(userId, now, now);
    const alertId = randomUUID();
    db.prepare(
      `insert into alerts (id, public_id, user_id, mode, idempotency_key, latitude, longitude, accuracy, captured_at, location_error, message, created_at, resolved_at)
       values (?, ?, ?, 'real', ?, null, null, null, null, 'unavailable', 'ALERTA: killed precisa de ajuda.', ?, null)`,
    ).run(alertId, randomUUID(), userId, randomUUID(), now);
    const phones = ['+351910000001', '+351910000002', '+351910000003'];
    const insert = db.prepare(
      `insert into deliveries (id, alert_id, contact_name, phone_number, body, status, attempts, provider_message_id, last_error, created_at, updated_at)
       values (?, ?, ?, ?, 'ALERTA: killed precisa de ajuda.', ?, ?, null, null, ?, ?)`,
    );
    const job = db.prepare(
      `insert into jobs (id, kind, subject, due_at, attempts, lease_until, lease_token, failed_at, last_error, created_at)
       values (?, 'sms', ?, ?, ?, ?, ?, null, null, ?)`,
    );
    const lease = now + 2_000;
    const send = (name: string, phone: string | undefined, status: 'sending' | 'queued', dueAt: number) => {
      const id = randomUUID();
      insert.run(id, alertId, name, phone, status, status === 'sending' ? 1 : 0, now, now);
      if (status === 'sending') job.run(randomUUID(), id, now, 1, lease, 'the-killed-process', now);
      else job.run(randomUUID(), id, dueAt, 0, null, null, now);
    };
    send('Ana', phones[0], 'sending', now);
    send('Rui', phones[1], 'sending', now);
    send('Eva', phones[2], 'queued', now + 1_500);
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = spawnServer(env);
    running = second.child;
    const base = await listeningUrl(second.child);
    type Outbox = { sms: { to: string; body: string }[] };
    const outbox = await waitFor('all three SMS', async () => {
      const res = await fetch(`${base}${outboxJsonPath}`);
      const json = (await res.json()) as Outbox;
      return json.sms.length >= 3 ? json : undefined;
    });
    // Until every delivery is sent: then nothing is left that could be sent a second time.
    const rows = await waitFor('every delivery sent', async () => {
      const all = db.prepare('select status, attempts from deliveries order by contact_name').all() as {
        status: string;
        attempts: number;
      }[];
      return all.every((row) => ['sent', 'delivered'].includes(row.status)) ? all : undefined;
    });
    const final = (await (await fetch(`${base}${outboxJsonPath}`)).json()) as Outbox;
    expect(final.sms.map((m) => m.to).sort()).toEqual(phones);
    expect(outbox.sms.length).toBe(3);
    for (const row of rows) expect(['sent', 'delivered']).toContain(row.status);
    db.close();
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    running = undefined;
  });
});

describe('server stopped by a signal', () => {
  const dirs: string[] = [];
  let running: ChildProcess | undefined;
  afterAll(() => {
    running?.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGHUP'] as const)('%s: logs it, ends open live streams and exits 0', async (signal) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-stop-'));
    dirs.push(dataDir);
    // Port 0: the server gets a port from the system and names it in its start line.
    const env = { PORT: '0', DATA_DIR: dataDir, JWT_SECRET: SECRET, ALERTA_DIST_DIR: dataDir };
    const server = spawnServer({ ...env, LOG_LEVEL: 'info' });
    running = server.child;
    const base = await listeningUrl(server.child);

    // An alert someone follows on its live page.
    const db = new SQLite(path.join(dataDir, 'alerta.sqlite'));
    const now = Date.now();
    const userId = randomUUID();
    db.prepare(
      `insert into users (id, username, email, password_hash, email_verified, language, alert_countdown_seconds, token, trial_used_at, password_changed_at, created_at)
       values (?, 'stopped', null, '$argon2id$v=19$m=19456,t=2,p=1$x$y', 1, 'pt', 5, ?, null, ?, ?)`,
    ).run(userId, randomUUID(), now, now);
    const publicId = randomUUID();
    db.prepare(
      `insert into alerts (id, public_id, user_id, mode, idempotency_key, latitude, longitude, accuracy, captured_at, location_error, message, created_at, resolved_at)
       values (?, ?, ?, 'real', ?, null, null, null, null, 'unavailable', 'ALERTA: stopped precisa de ajuda.', ?, null)`,
    ).run(randomUUID(), publicId, userId, randomUUID(), now);
    db.close();
    const res = await fetch(`${base}/api/live/${publicId}/events`);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: live')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`stream ended early: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }

    server.child.kill(signal);
    expect(await exited(server.child)).toBe(0);
    running = undefined;
    // The server ended the stream before it went (a cut one would reject here).
    while (!(await reader.read()).done);
    expect(server.output().out).toContain(`${signal} received`);
  });
});

describe(`a fresh app resumes what a stopped one left (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ BENCH_NO_RATE_LIMIT: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends queued deliveries and takes over expired claims when the next process starts', async () => {
    // This process stops dispatching (as if killed right after the alerts committed).
    await t.app.dispatcher.stop();
    const person = await subscriber(t.app, 3);
    for (let i = 0; i < 3; i += 1) expect((await sendAlert(t.app, person.token)).statusCode).toBe(201);
    const [claimed] = await t.app.db.selectFrom('deliveries').select('id').limit(1).execute();
    await t.app.db
      .updateTable('deliveries')
      .set({ status: 'sending', attempts: 1 })
      .where('id', '=', claimed!.id)
      .execute();
    // Its job taken by the stopped process, whose lease has lapsed.
    await t.app.db
      .updateTable('jobs')
      .set({ attempts: 1, lease_until: t.clock.now() - 1, lease_token: 'the-stopped-process' })
      .where('subject', '=', claimed!.id)
      .execute();
    expect(await alertSms(t.app.db, t.app.outbox)).toHaveLength(0);

    const next = await buildApp({
      config: t.config,
      jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
      database: t.database,
      clock: t.clock,
      logger: false,
      distDir: path.join(t.dataDir, 'no-dist'),
    });
    await next.ready();
    await next.dispatcher.drain();
    expect(await expectAllSentOnce(next.db, next.outbox, 3)).toBe(9);
    await next.close();
  });
});
