// `npm run loadtest [-- --postgres] [-- --duration 60 --connections 100]`: a bounded load
// test on loopback. Starts the real server (rate limits lifted), seeds subscribers through
// the API, runs mixed traffic with autocannon, then checks there was no 5xx and that every
// accepted alert had all its deliveries sent. Writes the figures into docs/RELIABILITY.md.
// `npm run loadtest -- --disaster [--owners 10000]`: the regional disaster instead
// (scripts/disaster/run.ts): that many owners alerting within 60 s against 3 processes.
// `npm run loadtest -- --crash [--owners 2000] [--window 30] [--kill-every 5]`: a burst with server
// processes killed (SIGKILL) and restarted under it (scripts/disaster/crash.ts): lost / duplicate /
// max delay press → provider; `--kill-every 0` runs the same burst with no kill, as a baseline.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { SQLite } from '../server/db/sqlite-driver.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '100' },
    users: { type: 'string', default: '20' },
    postgres: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    // The regional disaster (scripts/disaster/run.ts): many owners at once, 3 processes, PostgreSQL and Redis.
    disaster: { type: 'boolean', default: false },
    // Processes killed and restarted during a burst (scripts/disaster/crash.ts).
    crash: { type: 'boolean', default: false },
    owners: { type: 'string' },
    // The presses' spread, and how often a process is killed (0: never, a baseline), in seconds
    // (--crash; the defaults are scripts/disaster/crash.ts's).
    window: { type: 'string' },
    'kill-every': { type: 'string' },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const USERS = Number(args.users);
const PASSWORD = 'Load-Test-Pass-51';
/** The dev outbox's key on the server this run starts (it reads the verification e-mails there). */
const OUTBOX_KEY = randomBytes(18).toString('base64url');
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** A database of its own: a SQLite file in a temporary DATA_DIR, or a new PostgreSQL database. */
async function prepareDatabase(dataDir) {
  if (!args.postgres) {
    return {
      url: '',
      label: 'SQLite (embedded, WAL)',
      open: () => {
        const db = new SQLite(path.join(dataDir, 'alerta.sqlite'), { readonly: true });
        return { all: async (q) => db.prepare(q).all(), close: async () => db.close() };
      },
      drop: async () => {},
    };
  }
  const name = `alerta_load_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    label: 'PostgreSQL (loopback)',
    open: () => {
      const client = new pg.Client({ connectionString: url.toString() });
      const ready = client.connect();
      return {
        all: async (q) => {
          await ready;
          return (await client.query(q)).rows;
        },
        close: async () => client.end(),
      };
    },
    drop: async () => {
      const again = new pg.Client({ connectionString: ADMIN_URL });
      await again.connect();
      await again.query(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

async function startServer(dataDir, database) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: base,
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      JWT_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      BENCH_NO_RATE_LIMIT: '1',
      DEV_OUTBOX_KEY: OUTBOX_KEY,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 200; i += 1) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, base };
    await sleep(150);
  }
  throw new Error('server did not start');
}

/** One subscriber through the real API: register, verify, log in, pay, add three contacts. */
async function seedUser(base, i) {
  const json = async (method, url, body, access) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { 'content-type': 'application/json', ...(access ? { authorization: `Bearer ${access}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
  const username = `load${i}`;
  const email = `${username}@example.com`;
  await json('POST', '/api/users/registration/', {
    username,
    email,
    password1: PASSWORD,
    password2: PASSWORD,
    accept_terms: true,
  });
  const outbox = await json('GET', `/dev/outbox.json?key=${OUTBOX_KEY}`);
  const mail = outbox.emails.find((e) => e.to.includes(email));
  const link = new URL(mail.text.match(/https?:\/\/\S+/)[0]);
  await fetch(`${base}${link.pathname}`, { redirect: 'manual' });
  const { access } = await json('POST', '/api/users/auth/login/', { username, password: PASSWORD });
  const { url } = await json('POST', '/api/billing/checkout/', { plan: 'premium' }, access);
  await json('POST', `${url}/pay`, {});
  for (let c = 0; c < 3; c += 1) {
    const phone = `+3519${String(i).padStart(3, '0')}${String(c).padStart(5, '0')}`;
    await json(
      'POST',
      '/api/emergency/contacts/',
      { name: `${c === 0 ? 'TEST ' : ''}Contacto ${'abc'[c]}`, phone_number: phone },
      access,
    );
  }
  const me = await json('GET', '/api/users/me/', undefined, access);
  return { access, token: me.token };
}

/** The mix each connection cycles through, one subscriber per cycle. */
function trafficMix(users, counters) {
  let next = 0;
  const auth = (context) => ({ authorization: `Bearer ${context.user.access}` });
  return [
    {
      method: 'GET',
      path: '/api/health',
      setupRequest: (req, context) => {
        context.user = users[next++ % users.length];
        return req;
      },
    },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: '/api/users/me/', headers: auth(c) }) },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: '/api/emergency/contacts/', headers: auth(c) }) },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/api/emergency/public/${c.user.token}/` }) },
    {
      method: 'POST',
      setupRequest: (req, c) => {
        c.key = randomUUID();
        return {
          ...req,
          path: `/api/emergency/public/${c.user.token}/alerts/`,
          headers: { 'content-type': 'application/json', 'idempotency-key': c.key },
          body: JSON.stringify({
            mode: 'real',
            location: { latitude: 38.7223, longitude: -9.1393, accuracy: 12, captured_at: Date.now() },
          }),
        };
      },
      onResponse: (status, body, c) => {
        if (status === 201) {
          counters.accepted += 1;
          c.alertId = JSON.parse(body).id;
        }
      },
    },
    {
      method: 'GET',
      setupRequest: (req, c) => ({
        ...req,
        path: `/api/emergency/public/${c.user.token}/alerts/${c.alertId ?? 'none'}/`,
      }),
    },
    {
      // The same request again, as a flaky network would: answered, never sent twice.
      method: 'POST',
      setupRequest: (req, c) => ({
        ...req,
        path: `/api/emergency/public/${c.user.token}/alerts/`,
        headers: { 'content-type': 'application/json', 'idempotency-key': c.key },
        body: JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' }),
      }),
      onResponse: (status) => {
        if (status === 200) counters.replayed += 1;
      },
    },
    {
      // A bad request: a clear 400, never a 5xx.
      method: 'POST',
      setupRequest: (req, c) => ({
        ...req,
        path: '/api/emergency/contacts/',
        headers: { ...auth(c), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'X', phone_number: '12' }),
      }),
    },
    { method: 'GET', setupRequest: (req, c) => ({ ...req, path: `/public/${c.user.token}/manifest.webmanifest` }) },
  ];
}

/** Waits until no delivery is left to send; returns the seconds it took. */
async function waitForDeliveries(db, limitMs = 120_000) {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    const [row] = await db.all("select count(*) as n from deliveries where status in ('queued', 'sending')");
    if (Number(row.n) === 0) return (Date.now() - started) / 1000;
    await sleep(250);
  }
  throw new Error('deliveries still pending after the run');
}

function peakRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(status.match(/VmHWM:\s+(\d+)/)[1]) / 1024);
  } catch {
    return null;
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-load-'));
  const database = await prepareDatabase(dataDir);
  const { child, base } = await startServer(dataDir, database);
  let db;
  try {
    console.log(`loadtest: seeding ${USERS} subscribers on ${database.label}`);
    const users = [];
    for (let i = 0; i < USERS; i += 1) users.push(await seedUser(base, i));
    const counters = { accepted: 0, replayed: 0 };
    console.log(`loadtest: ${CONNECTIONS} connections for ${DURATION} s`);
    const result = await autocannon({
      url: base,
      connections: CONNECTIONS,
      duration: DURATION,
      requests: trafficMix(users, counters),
    });
    db = database.open();
    const drainSeconds = await waitForDeliveries(db);
    const [alerts] = await db.all('select count(*) as n from alerts');
    const [deliveries] = await db.all('select count(*) as n from deliveries');
    const [sent] = await db.all("select count(*) as n from deliveries where status in ('sent', 'delivered')");
    const [incomplete] = await db.all(
      'select count(*) as n from alerts a where (select count(*) from deliveries d where d.alert_id = a.id) <> 3',
    );
    const statuses = Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]),
    );
    const fiveXx = Object.entries(statuses)
      .filter(([code]) => code.startsWith('5'))
      .reduce((n, [, c]) => n + c, 0);
    const figures = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' '),
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${os.platform()}`,
      database: database.label,
      duration: DURATION,
      connections: CONNECTIONS,
      users: USERS,
      requests: result.requests.total,
      rps: Math.round(result.requests.average),
      latency: result.latency,
      statuses,
      fiveXx,
      errors: result.errors,
      timeouts: result.timeouts,
      accepted: counters.accepted,
      replayed: counters.replayed,
      alerts: Number(alerts.n),
      deliveries: Number(deliveries.n),
      sent: Number(sent.n),
      incomplete: Number(incomplete.n),
      drainSeconds,
      peakRss: peakRssMb(child.pid),
    };
    console.log(JSON.stringify(figures, null, 2));
    const ok =
      fiveXx === 0 &&
      figures.errors === 0 &&
      // Requests still in flight when the load stops are committed and sent, their answers unread.
      figures.alerts >= figures.accepted &&
      figures.alerts - figures.accepted <= CONNECTIONS &&
      figures.sent === figures.deliveries &&
      figures.deliveries === figures.alerts * 3 &&
      figures.incomplete === 0;
    if (!args['no-write']) writeFigures(figures, ok);
    if (!ok) {
      console.error('loadtest: FAILED (5xx, errors, or alerts not fully sent)');
      process.exitCode = 1;
    } else console.log('loadtest: passed');
  } finally {
    await db?.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Replaces the figures block for this database in docs/RELIABILITY.md. */
function writeFigures(f, ok) {
  const file = path.join(root, 'docs/RELIABILITY.md');
  const tag = args.postgres ? 'postgres' : 'sqlite';
  const start = `<!-- loadtest:${tag}:start -->`;
  const end = `<!-- loadtest:${tag}:end -->`;
  const codes = Object.entries(f.statuses)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');
  const block = `${start}
**${f.database}** — ${f.date} UTC, ${f.machine}; ${f.connections} connections for ${f.duration} s over ${f.users} subscribers (3 contacts each). Result: **${ok ? 'passed' : 'FAILED'}**.

| figure | value |
|---|---|
| requests | ${f.requests} (${f.rps} per second on average) |
| latency | p50 ${f.latency.p50} ms · p90 ${f.latency.p90} ms · p99 ${f.latency.p99} ms · max ${f.latency.max} ms |
| answers by status | ${codes} |
| 5xx answers | **${f.fiveXx}** |
| connection errors / timeouts | ${f.errors} / ${f.timeouts} |
| alerts accepted (201) | ${f.accepted}; in the database: ${f.alerts} (the rest were in flight when the load stopped: committed and sent, answers unread); with other than 3 deliveries: ${f.incomplete} |
| replays answered 200 without sending | ${f.replayed} |
| deliveries sent | ${f.sent} of ${f.deliveries}, all sent ${f.drainSeconds.toFixed(1)} s after the load stopped |
| server peak memory (RSS) | ${f.peakRss ?? 'n/a'} MB |
${end}`;
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(start);
  const updated =
    at >= 0
      ? text.slice(0, at) + block + text.slice(text.indexOf(end) + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, updated);
  console.log(`loadtest: figures written to docs/RELIABILITY.md (${tag})`);
}

if (args.disaster) {
  const { runDisaster } = await import('./disaster/run.ts');
  const { figures, misses } = await runDisaster(Number(args.owners ?? 10_000));
  console.log(JSON.stringify(figures, null, 2));
  for (const miss of misses) console.error(`disaster: MISSED: ${miss}`);
  if (misses.length > 0) process.exitCode = 1;
} else if (args.crash) {
  const { runCrash } = await import('./disaster/crash.ts');
  const { figures, misses } = await runCrash(Number(args.owners ?? 2_000), {
    ...(args.window ? { windowMs: Number(args.window) * 1000 } : {}),
    ...(args['kill-every'] ? { killEveryMs: Number(args['kill-every']) * 1000 } : {}),
  });
  console.log(JSON.stringify(figures, null, 2));
  console.log(
    `crash: lost ${figures.lost} / duplicate ${figures.duplicates} / max delay ${(figures.maxDelayMs / 1000).toFixed(1)} s (target 0 / 0 / ≤ 10 s)`,
  );
  for (const miss of misses) console.error(`crash: MISSED: ${miss}`);
  if (misses.length > 0) process.exitCode = 1;
} else {
  await main();
}
