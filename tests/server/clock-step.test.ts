import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertBody, seedOwners } from '../../bench/fixtures.js';
import { type ServerProcess, startServer, stopServer } from '../../scripts/disaster/processes.js';
import { type DatabaseHandle, databaseNow, migrateToLatest, openDatabase } from '../../server/db/index.js';
import { DatabaseClock } from '../../server/lib/clock.js';
import { SECOND } from '../../server/lib/time.js';
import { dbKind, dbLabel, suiteApp } from './helper.js';
import { checkinDueAt, processEnv, processesDatabase } from './server-processes.js';
import { type FakeTwilio, fakeTwilio, silentTwilio } from './twilio-fake.js';

// A process whose wall clock is stepped a minute ahead after it synced with the database moves
// nothing: the server's clock is the database's time at the last sync plus the monotonic time
// elapsed since (server/lib/clock.ts).

/** How far the second process's wall clock is stepped (s): past the 6-s lease and a check-in's minute. */
const STEP_SECONDS = 61;
/** When the check-in written for the test falls due (ms from its writing). */
const DUE_IN_MS = 12 * SECOND;

describe(`the server's clock across a step of the machine's wall clock (${dbLabel})`, () => {
  const t = suiteApp();

  it("keeps the database's time when the wall clock steps a minute after the sync", async () => {
    let stepped = 0;
    const wall = { now: () => Date.now() + stepped, sleep: t.clock.sleep.bind(t.clock) };
    const clock = new DatabaseClock(wall);
    await clock.sync(() => databaseNow(t.app.db, t.app.dialect));
    stepped = STEP_SECONDS * SECOND;
    const database = await databaseNow(t.app.db, t.app.dialect);
    expect(Math.abs(clock.now() - database)).toBeLessThan(SECOND);
  });
});

/** libfaketime's library: it fakes the wall clock of the process it is preloaded into. */
const FAKETIME_LIBRARY = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

// Two real processes (scripts/disaster/server.ts, the Twilio adapters) over one PostgreSQL
// database, the second under libfaketime: its wall clock follows a timestamp file that is
// stepped +61 s once it has synced. The `faketime` command would also set FAKETIME, which
// libfaketime prefers over the file: the library is preloaded alone. The monotonic clock is
// left alone (FAKETIME_DONT_FAKE_MONOTONIC), as a real step of the wall clock leaves it.
// PostgreSQL pass only: on SQLite the database's time is each process's own wall clock.
const describeHere = dbKind === 'postgres' ? describe : (_name: string, _body: () => void) => undefined;

describeHere(`a process whose wall clock steps 61 s ahead (${dbLabel})`, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-step-'));
  const stampFile = path.join(dataDir, 'faketime');
  const running: ServerProcess[] = [];
  let database: { url: string; drop(): Promise<void> } | undefined;
  let handle: DatabaseHandle;
  let fake: FakeTwilio;
  let silent: Awaited<ReturnType<typeof silentTwilio>>;
  let owners: { held: { id: string; token: string }; due: { id: string }; started: { token: string } };
  let held: string[];

  beforeAll(async () => {
    if (!existsSync(FAKETIME_LIBRARY)) throw new Error(`${FAKETIME_LIBRARY} is missing: install Debian's faketime`);
    database = await processesDatabase('alerta_step');
    handle = openDatabase({ dataDir, databaseUrl: database.url });
    await migrateToLatest(handle.db);
    const [first, second, third] = await seedOwners(handle.db, { owners: 3, contacts: 2 });
    if (!first || !second || !third) throw new Error('owners not seeded');
    owners = { held: first, due: second, started: third };
    await handle.db.updateTable('users').set({ escalation_after_seconds: 0 }).execute();
    held = (
      await handle.db.selectFrom('contacts').select('phone_number').where('user_id', '=', first.id).execute()
    ).map((c) => c.phone_number);
    fake = await fakeTwilio();
    silent = await silentTwilio();
    writeFileSync(stampFile, '+0\n');
    const where = { databaseUrl: database.url, dataDir };
    const [a, b] = await Promise.all([
      startServer(processEnv({ ...where, twilioUrl: silent.url }, 'a'), { quiet: true }),
      startServer(
        {
          ...processEnv({ ...where, twilioUrl: fake.url }, 'b'),
          LD_PRELOAD: FAKETIME_LIBRARY,
          FAKETIME_TIMESTAMP_FILE: stampFile,
          FAKETIME_NO_CACHE: '1',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
        },
        { quiet: true },
      ),
    ]);
    running.push(a, b);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((server) => stopServer(server)));
    await handle?.close();
    await database?.drop();
    await new Promise((resolve) => fake?.server.close(resolve));
    await silent?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("takes no lease the other holds, fires a job at its real time once, and writes a check-in's due time right", async () => {
    const [a, b] = running as [ServerProcess, ServerProcess];
    // A holds the SMS of an alert, its Twilio never answering: it renews their leases.
    const res = await fetch(`${a.url}/api/emergency/public/${owners.held.token}/alerts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: alertBody(),
    });
    expect(res.status).toBe(201);
    await vi.waitFor(() => expect(silent.heard().filter((r) => r.api === 'Messages')).toHaveLength(held.length), {
      timeout: 10_000,
      interval: 50,
    });

    writeFileSync(stampFile, `+${STEP_SECONDS}\n`);
    const shown = Date.parse((await fetch(`${b.url}/api/health`)).headers.get('date') ?? '');
    expect(shown - Date.now()).toBeGreaterThan((STEP_SECONDS - 2) * SECOND);

    const dueAt = Date.now() + DUE_IN_MS;
    const checkinId = await checkinDueAt(handle.db, owners.due.id, dueAt);
    const startedAt = Date.now();
    const started = await fetch(`${b.url}/api/emergency/public/${owners.started.token}/checkins/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ duration_seconds: 60 }),
    });
    expect(started.status).toBe(201);
    const written = await handle.db
      .selectFrom('checkins')
      .innerJoin('jobs', 'jobs.subject', 'checkins.id')
      .select(['checkins.due_at', 'jobs.due_at as job_due_at'])
      .where('checkins.id', '=', (await started.json()).id)
      .executeTakeFirstOrThrow();
    for (const due of [written.due_at, written.job_due_at]) {
      expect(Math.abs(Number(due) - (startedAt + 60 * SECOND))).toBeLessThan(2 * SECOND);
    }

    let firedAt = 0;
    while (!firedAt && Date.now() < dueAt + 5 * SECOND) {
      const row = await handle.db
        .selectFrom('checkins')
        .select('status')
        .where('id', '=', checkinId)
        .executeTakeFirst();
      if (row?.status === 'fired') firedAt = Date.now();
      else await wait(50);
    }
    expect(firedAt - dueAt).toBeGreaterThanOrEqual(0);
    expect(firedAt - dueAt).toBeLessThan(3 * SECOND);
    // Once: no second alert a sweep later.
    await wait(1500);
    const alerts = await handle.db.selectFrom('alerts').select('reason').where('user_id', '=', owners.due.id).execute();
    expect(alerts).toEqual([{ reason: 'missed_checkin' }]);
    // Two leases and more since the step, and B took none of A's renewed SMS jobs.
    expect(fake.messages.filter((m) => held.includes(m.to))).toEqual([]);
  }, 60_000);
});
