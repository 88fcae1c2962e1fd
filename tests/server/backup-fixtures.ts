import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dbKind } from './helper.js';

// What the tests of `npm run backup` and `npm run restore` share: running the scripts as an
// operator does, a place for one copy of the data, and an alert sent as a person sends it.

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `npm run <script> -- <args>` with the store's environment; resolves with its exit code and output. */
export function npmRun(script: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: '', DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** A place for one copy of the data: a DATA_DIR, and on PostgreSQL an empty database of its own. */
export interface Store {
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

let admin: pg.Client | undefined;

/** A client of the test server's own database, which creates and drops the stores' databases. */
export async function adminClient(): Promise<pg.Client> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  if (!admin) {
    admin = new pg.Client({ connectionString: base });
    await admin.connect();
  }
  return admin;
}

/** Closes the client adminClient opened, if any. */
export async function closeAdmin(): Promise<void> {
  await admin?.end();
  admin = undefined;
}

/** An empty PostgreSQL database of its own; resolves with its URL. */
async function newDatabase(prefix = 'alerta_backup'): Promise<{ name: string; url: string }> {
  const client = await adminClient();
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await client.query(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  return { name, url: url.href };
}

/** A new store on the database the tests run on. */
export async function newStore(): Promise<Store> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-backup-'));
  if (dbKind === 'sqlite') {
    return { env: { DATA_DIR: dataDir }, dataDir, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const { name, url } = await newDatabase();
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    dataDir,
    async drop() {
      await admin?.query(`drop database if exists ${name} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Presses the emergency link of the owner of `token`. */
export const sendAlert = (base: string, token: string) =>
  fetch(`${base}/api/emergency/public/${token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ mode: 'real', location: null, location_error: 'unavailable' }),
  });
