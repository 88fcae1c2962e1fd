import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { adminQuery } from '../../bench/fixtures.js';
import type { Database } from '../../server/db/schema.js';
import { jobRow, jobsInsert } from '../../server/jobs/index.js';
import { dbKind } from './helper.js';
import { AUTH_TOKEN, SID } from './twilio-fake.js';

// Shared by the tests that run real server processes (scripts/disaster/server.ts) on one
// database: its preparation, each process's environment, and a check-in written due.

/** A PostgreSQL database of its own for the processes (SQLite: the file in the shared DATA_DIR). */
export async function processesDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dbKind === 'sqlite') return { url: '', drop: async () => {} };
  const admin = process.env.TEST_DATABASE_URL;
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminQuery(admin, `create database ${name}`);
  const url = new URL(admin as string);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(admin, `drop database if exists ${name} with (force)`) };
}

/** The environment of one server process named `name`, its Twilio at `twilioUrl`. */
export const processEnv = (
  options: { databaseUrl: string; dataDir: string; twilioUrl: string },
  name: string,
): Record<string, string> => ({
  ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  // One SQLite file for both (WAL); on PostgreSQL each keeps its own files.
  DATA_DIR: dbKind === 'sqlite' ? options.dataDir : mkdtempSync(path.join(options.dataDir, `${name}-`)),
  HOST: '127.0.0.1',
  PORT: '0',
  JWT_SECRET: 'server-processes-secret-long-enough-for-hs256',
  LOG_LEVEL: 'warn',
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: AUTH_TOKEN,
  TWILIO_FROM: '+15005550006',
  SMS_CONCURRENCY: '20',
  DISASTER_TWILIO_URL: options.twilioUrl,
});

/** A running check-in of `userId` with no grace, its job due at `dueAt`: it fires then. Resolves with its id. */
export async function checkinDueAt(db: Kysely<Database>, userId: string, dueAt: number): Promise<string> {
  const now = Date.now();
  const id = randomUUID();
  await db
    .insertInto('checkins')
    .values({
      id,
      user_id: userId,
      idempotency_key: randomUUID(),
      request_hash: 'server-processes',
      status: dueAt <= now ? 'overdue' : 'running',
      note: null,
      due_at: dueAt,
      grace_seconds: 0,
      proven: 1,
      latitude: null,
      longitude: null,
      accuracy: null,
      captured_at: null,
      fix_proven: 0,
      wrong_pins: 0,
      duress: 0,
      alert_id: null,
      created_at: now - 60_000,
      ended_at: null,
    })
    .execute();
  await jobsInsert(db, [jobRow({ kind: 'checkin', subject: id, dueAt, now })]).execute();
  return id;
}
