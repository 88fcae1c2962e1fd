import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertBody, seedOwners } from '../../bench/fixtures.js';
import { killServer, type ServerProcess, startServer, stopServer } from '../../scripts/disaster/processes.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../server/db/index.js';
import { dbLabel } from './helper.js';
import { checkinDueAt, processEnv, processesDatabase } from './server-processes.js';
import { type FakeTwilio, fakeTwilio, silentTwilio } from './twilio-fake.js';

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

  async function start(twilioUrl: string, name: string): Promise<ServerProcess> {
    const where = { databaseUrl: database?.url ?? '', dataDir, twilioUrl };
    const server = await startServer(processEnv(where, name), { quiet: true });
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

  const heardBy = (phones: string[], api: 'Messages' | 'Calls') =>
    silent.heard().filter((r) => r.api === api && r.to !== null && phones.includes(r.to)).length;
  const smsTo = (phones: string[]) => fake.messages.filter((m) => phones.includes(m.to));
  const callsTo = (phones: string[]) => fake.calls.filter((c) => phones.includes(c.to));
  const perNumber = (sent: { to: string }[], phones: string[]) =>
    phones.map((phone) => sent.filter((item) => item.to === phone).length);

  beforeAll(async () => {
    database = await processesDatabase('alerta_crash');
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
    checkinId = await checkinDueAt(handle.db, checkin.id, Date.now());
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
