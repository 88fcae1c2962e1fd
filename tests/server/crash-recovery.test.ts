import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminQuery, alertBody, seedOwners } from '../../bench/fixtures.js';
import { killServer, type ServerProcess, startServer, stopServer } from '../../scripts/disaster/processes.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../server/db/index.js';
import { CHECKIN_TIMER } from '../../server/features/checkins/timer.js';
import { timerRow, timersInsert } from '../../server/lib/timers.js';
import { dbKind, dbLabel } from './helper.js';
import { AUTH_TOKEN, type FakeTwilio, fakeTwilio, SID, silentTwilio } from './twilio-fake.js';

/** What the product promises: another process hands a dead one's work to the provider within this (ms). */
const RECOVERY_MS = 10_000;
const CONTACTS = 3;

type Silent = Awaited<ReturnType<typeof silentTwilio>>;
interface Owner {
  id: string;
  token: string;
  phones: string[];
}

// A process killed with SIGKILL while it holds work: A's Twilio never answers (a provider hung),
// so the SMS of the alert it stored, the escalation calls it placed and the alert of a check-in
// it fired are all in flight when it dies. B, on the same database and the real fake Twilio,
// hands every one of them over within 10 s of the kill, none twice. Real processes
// (scripts/disaster/server.ts: the app with the Twilio adapters and SDK).
describe(`a process killed holding SMS, calls and a check-in's alert (${dbLabel})`, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-crash-'));
  const running: ServerProcess[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  let handle: DatabaseHandle;
  let fake: FakeTwilio;
  let silent: Silent;
  let owners: { sms: Owner; call: Owner; checkin: Owner };
  let checkinId: string;
  let killedAt = 0;

  /** A PostgreSQL database of its own for the two processes (SQLite: the file in the shared DATA_DIR). */
  async function prepareDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
    if (dbKind === 'sqlite') return { url: '', drop: async () => {} };
    const admin = process.env.TEST_DATABASE_URL;
    const name = `alerta_crash_${randomBytes(4).toString('hex')}`;
    await adminQuery(admin, `create database ${name}`);
    const url = new URL(admin as string);
    url.pathname = `/${name}`;
    return { url: url.toString(), drop: () => adminQuery(admin, `drop database if exists ${name} with (force)`) };
  }

  const serverEnv = (twilioUrl: string, name: string): Record<string, string> => ({
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    // One SQLite file for both (WAL); on PostgreSQL each keeps its own files.
    DATA_DIR: dbKind === 'sqlite' ? dataDir : mkdtempSync(path.join(dataDir, `${name}-`)),
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_SECRET: 'crash-recovery-secret-long-enough-for-hs256',
    LOG_LEVEL: 'warn',
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_FROM: '+15005550006',
    SMS_CONCURRENCY: '20',
    DISASTER_TWILIO_URL: twilioUrl,
  });

  async function start(twilioUrl: string, name: string): Promise<ServerProcess> {
    const server = await startServer(serverEnv(twilioUrl, name), { quiet: true });
    running.push(server);
    return server;
  }

  async function sendAlert(server: ServerProcess, owner: Owner): Promise<number> {
    const res = await fetch(`${server.url}/api/emergency/public/${owner.token}/alerts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: alertBody(),
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** A check-in of `owner` whose grace is over, with its job due now: the next sweep fires it. */
  async function dueCheckin(owner: Owner): Promise<string> {
    const now = Date.now();
    const id = randomUUID();
    await handle.db
      .insertInto('checkins')
      .values({
        id,
        user_id: owner.id,
        idempotency_key: randomUUID(),
        request_hash: 'crash-recovery',
        status: 'overdue',
        note: null,
        due_at: now - 1000,
        grace_seconds: 0,
        proven: 1,
        latitude: null,
        longitude: null,
        accuracy: null,
        fix_proven: 0,
        captured_at: null,
        wrong_pins: 0,
        duress: 0,
        alert_id: null,
        created_at: now - 60_000,
        ended_at: null,
      })
      .execute();
    await timersInsert(handle.db, [timerRow({ kind: CHECKIN_TIMER, subject: id, dueAt: now, now })]).execute();
    return id;
  }

  const heardBy = (phones: string[], api: 'Messages' | 'Calls') =>
    silent.heard().filter((r) => r.api === api && r.to !== null && phones.includes(r.to)).length;
  const smsTo = (phones: string[]) => fake.messages.filter((m) => phones.includes(m.to));
  const callsTo = (phones: string[]) => fake.calls.filter((c) => phones.includes(c.to));
  const perNumber = (sent: { to: string }[], phones: string[]) =>
    phones.map((phone) => sent.filter((item) => item.to === phone).length);

  beforeAll(async () => {
    database = await prepareDatabase();
    handle = openDatabase({ dataDir, ...(database.url ? { databaseUrl: database.url } : {}) });
    await migrateToLatest(handle.db);
    const seeded = await seedOwners(handle.db, { owners: 3, contacts: CONTACTS });
    const phones = await Promise.all(
      seeded.map(async ({ id }) =>
        (await handle.db.selectFrom('contacts').select('phone_number').where('user_id', '=', id).execute()).map(
          (c) => c.phone_number,
        ),
      ),
    );
    const [sms, call, checkin] = seeded.map((s, i) => ({ ...s, phones: phones[i] ?? [] }));
    if (!sms || !call || !checkin) throw new Error('owners not seeded');
    owners = { sms, call, checkin };
    // Only the second owner's alert escalates, a second after it is stored.
    await handle.db.updateTable('users').set({ escalation_after_seconds: 0 }).execute();
    await handle.db.updateTable('users').set({ escalation_after_seconds: 1 }).where('id', '=', call.id).execute();

    fake = await fakeTwilio();
    silent = await silentTwilio();
    const a = await start(silent.url, 'a');
    expect(await sendAlert(a, sms)).toBe(201);
    expect(await sendAlert(a, call)).toBe(201);
    checkinId = await dueCheckin(checkin);
    // A holds every piece of work, each sent to a Twilio that never answers.
    await vi.waitFor(
      () => {
        expect(heardBy(sms.phones, 'Messages')).toBe(CONTACTS);
        expect(heardBy(call.phones, 'Messages')).toBe(2 * CONTACTS);
        expect(heardBy(call.phones, 'Calls')).toBe(CONTACTS);
        expect(heardBy(checkin.phones, 'Messages')).toBe(CONTACTS);
      },
      { timeout: 20_000, interval: 100 },
    );
    await start(fake.url, 'b');
    expect(fake.messages).toHaveLength(0);
    await killServer(a);
    killedAt = Date.now();
    // Until B has recorded every outcome: nothing is left that could go a second time.
    await vi.waitFor(
      async () => {
        const open = await handle.db
          .selectFrom('deliveries')
          .select('id')
          .where('status', 'not in', ['sent', 'delivered'])
          .execute();
        expect(open).toEqual([]);
        const waiting = await handle.db
          .selectFrom('escalation_calls')
          .select('id')
          .where('status', '=', 'queued')
          .execute();
        expect(waiting).toEqual([]);
        expect(callsTo(call.phones)).toHaveLength(CONTACTS);
      },
      { timeout: 30_000, interval: 200 },
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((server) => stopServer(server)));
    await handle?.close();
    await database?.drop();
    await new Promise((resolve) => fake?.server.close(resolve));
    await silent?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('hands the SMS of an alert the dead process stored to the provider within 10 s, once each', () => {
    const sent = smsTo(owners.sms.phones);
    expect(perNumber(sent, owners.sms.phones)).toEqual([1, 1, 1]);
    for (const message of sent) expect(message.sentAt - killedAt).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it('places the escalation calls the dead process was placing within 10 s, each contact rung once', () => {
    const calls = callsTo(owners.call.phones);
    expect(perNumber(calls, owners.call.phones)).toEqual([1, 1, 1]);
    for (const call of calls) expect(call.createdAt - killedAt).toBeLessThanOrEqual(RECOVERY_MS);
    // The alert's SMS and the escalation's second SMS, once each.
    const sent = smsTo(owners.call.phones);
    expect(perNumber(sent, owners.call.phones)).toEqual([2, 2, 2]);
    for (const message of sent) expect(message.sentAt - killedAt).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it('sends the alert of a check-in the dead process fired within 10 s, the check-in fired once', async () => {
    const sent = smsTo(owners.checkin.phones);
    expect(perNumber(sent, owners.checkin.phones)).toEqual([1, 1, 1]);
    for (const message of sent) expect(message.sentAt - killedAt).toBeLessThanOrEqual(RECOVERY_MS);
    const alerts = await handle.db
      .selectFrom('alerts')
      .select(['id', 'reason'])
      .where('user_id', '=', owners.checkin.id)
      .execute();
    expect(alerts.map((a) => a.reason)).toEqual(['missed_checkin']);
    const checkin = await handle.db
      .selectFrom('checkins')
      .select(['status', 'alert_id'])
      .where('id', '=', checkinId)
      .executeTakeFirst();
    expect(checkin).toEqual({ status: 'fired', alert_id: alerts[0]?.id });
  });
});
