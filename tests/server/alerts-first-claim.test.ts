import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryStatus } from '../../server/db/schema.js';
import { asClaimed, queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { sentRecorder } from '../../server/features/alerts/sent-records.js';
import { newId } from '../../server/lib/ids.js';
import { alertRow, eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbKind, dbLabel, describeOn, suiteApp, type TestApp } from './helper.js';
import { watchSqliteStatements, watchStatements } from './statements-seen.js';

// When a new alert's SMS are first taken by the dispatcher: the alert's own transaction writes
// them already claimed (as many as the dispatcher has free slots), so no claim statement has to
// find them after the commit, on either database; by the time the answer leaves every SMS is
// taken, and each goes once.

/** The statements that write sent SMS's usage, and those that mark deliveries sent. */
const USAGE = /insert into "?usage_records"?/;
const MARKING = /update "?deliveries"? set\s+"?status"? = case when/;

describe(`a new alert's first claim (${dbLabel})`, () => {
  let t: TestApp;
  /** The statuses of the alert's deliveries as its answer was about to be sent. */
  const atAnswer = new Map<string, DeliveryStatus[]>();
  beforeAll(async () => {
    t = await buildTestApp({}, (app) => {
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.method !== 'POST' || reply.statusCode !== 201) return payload;
        const { id } = JSON.parse(String(payload)) as { id: string };
        const rows = await app.db.selectFrom('deliveries').select('status').where('alert_id', '=', id).execute();
        atAnswer.set(id, rows.map((row) => row.status).sort());
        return payload;
      });
    });
    // The dispatcher's first claim, as it starts, holds every slot while it waits for the
    // database (on PostgreSQL, for a new connection too): an alert meanwhile is lent none.
    await t.app.dispatcher.drain();
  });
  afterAll(async () => {
    await t.app.dispatcher.drain();
    await t.close();
  });

  it('writes its SMS claimed in the alert’s own transaction: no claim after it, none queued when the answer leaves', async () => {
    const owner = await ownerWithContacts(t.app);
    const statements = dbKind === 'postgres' ? undefined : watchSqliteStatements();
    let response: Awaited<ReturnType<typeof postAlert>>;
    try {
      response = await postAlert(t.app, owner.token);
    } finally {
      statements?.stop();
    }
    expect(response.statusCode).toBe(201);
    const { id } = response.json<{ id: string }>();
    expect(atAnswer.get(id)).toEqual(['sending', 'sending']);
    expect(response.json<{ deliveries: { status: string }[] }>().deliveries.map((d) => d.status)).toEqual([
      'sending',
      'sending',
    ]);
    if (statements) {
      const inTransaction = (prefix: string) =>
        statements.seen.filter((s) => s.sql.startsWith(prefix)).map((s) => s.transaction);
      const [stored] = inTransaction('insert into "alerts"');
      expect(stored).toEqual(expect.any(Number));
      expect(inTransaction('insert into "deliveries"')).toEqual([stored]);
      expect(inTransaction('update "deliveries" set "status" = ?, "attempts" = attempts + 1')).toEqual([]);
    }
    const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);
    const both = () => smsTo('+351912345678').length + smsTo('+351913456789').length;
    await eventually(
      async () => both(),
      (count) => count >= 2,
    );
    await t.app.dispatcher.drain();
    expect(smsTo('+351912345678')).toHaveLength(1);
    expect(smsTo('+351913456789')).toHaveLength(1);
  });

  it('counts its receipt to the owner in one statement, on SQLite in the commit of a turn of writes', async () => {
    const owner = await ownerWithContacts(t.app);
    const statements = watchStatements();
    const bursts = () => statements.seen.filter((s) => s.sql.includes('"mail_bursts"'));
    try {
      for (let i = 0; i < 3; i += 1) {
        const before = bursts().length;
        expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
        await eventually(
          async () => bursts().length,
          (count) => count > before,
        );
        await t.app.dispatcher.drain();
      }
    } finally {
      statements.stop();
    }
    // The first receipt goes at once; the second is the first one gathered, which also sets the
    // summary's timer; the third and later only count themselves: one statement.
    expect(bursts().map((s) => s.sql.slice(0, 26))).toEqual([
      'insert into "mail_bursts" ',
      'insert into "mail_bursts" ',
      'update "mail_bursts" set "',
      'insert into "mail_bursts" ',
    ]);
    if (dbKind === 'sqlite') {
      const turns = bursts().map((s) => s.transaction);
      expect(turns.every((n) => typeof n === 'number')).toBe(true);
    }
  });

  it('records its sent SMS with their usage in one statement on PostgreSQL, in one transaction on SQLite', async () => {
    const owner = await ownerWithContacts(t.app);
    const statements = watchStatements();
    try {
      expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
      await eventually(
        async () => t.app.outbox.sms.filter((sms) => sms.body.includes(owner.user.username)).length,
        (count) => count >= 2,
      );
      await t.app.dispatcher.drain();
      await eventually(
        async () => statements.seen.filter((s) => USAGE.test(s.sql)).length,
        (count) => count > 0,
      );
    } finally {
      statements.stop();
    }
    const marking = statements.seen.filter((s) => MARKING.test(s.sql));
    const usage = statements.seen.filter((s) => USAGE.test(s.sql));
    expect(usage.length).toBeGreaterThan(0);
    if (dbKind === 'postgres') {
      // The same statements: each one marks its sends sent and writes their usage.
      expect(usage.every((s) => /^with sent as \(/.test(s.sql))).toBe(true);
      expect(marking).toEqual(usage);
    } else {
      const inTransaction = (list: typeof usage) => list.map((s) => s.transaction);
      expect(inTransaction(usage)).toEqual(inTransaction(marking));
      expect(inTransaction(usage).every((n) => typeof n === 'number')).toBe(true);
    }
  });
});

// Sends that finish together are recorded together, however many: on PostgreSQL with one
// statement text (its sends as arrays), which each connection prepares once and keeps its plan.
describeOn('postgres')('sent SMS recorded with one statement text (PostgreSQL)', () => {
  const t = suiteApp();

  it('marks batches of 1 and 3 sends sent, with their usage, by the same text', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const now = t.clock.now();
    const alert = alertRow(owner.user.id, { created_at: now });
    const rows = Array.from({ length: 4 }, (_, i) => ({
      ...queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: `Contact ${i}`, phone_number: `+3519730${String(i).padStart(5, '0')}` },
        body: `Help ${newId()}`,
        now,
      }),
      status: 'sending' as const,
    }));
    // Each being sent by a run that holds its job, as the outcome is recorded only then.
    const lease = { until: now + 6000, token: 'sending-run' };
    const jobs = rows.map((row) => ({ ...smsJob(row, now), lease }));
    await insertAlert(t.app.db, alert, rows, { dialect: t.app.dialect, jobs });
    const recorded = sentRecorder({ db: t.app.db, dialect: t.app.dialect, clock: t.clock });
    const claimed = rows.map((row) => asClaimed(row, owner.user.id));
    const statements = watchStatements();
    try {
      const [first, ...three] = claimed;
      if (!first) throw new Error('no delivery');
      await recorded(first, 'SMone', lease.token);
      await Promise.all(three.map((delivery, i) => recorded(delivery, `SMthree${i}`, lease.token)));
    } finally {
      statements.stop();
    }
    const usage = statements.seen.filter((s) => USAGE.test(s.sql));
    expect(usage).toHaveLength(2);
    expect(new Set(usage.map((s) => s.sql)).size).toBe(1);
    const stored = await t.app.db
      .selectFrom('deliveries')
      .select(['status', 'provider_message_id'])
      .where('alert_id', '=', alert.id)
      .orderBy('provider_message_id')
      .execute();
    expect(stored).toEqual([
      { status: 'sent', provider_message_id: 'SMone' },
      { status: 'sent', provider_message_id: 'SMthree0' },
      { status: 'sent', provider_message_id: 'SMthree1' },
      { status: 'sent', provider_message_id: 'SMthree2' },
    ]);
    // The owner's first real alert: its SMS are written, not billed.
    const usages = await t.app.db
      .selectFrom('usage_records')
      .select(['billable', 'parts'])
      .where('user_id', '=', owner.user.id)
      .execute();
    expect(usages).toEqual(Array.from({ length: 4 }, () => ({ billable: 0, parts: 1 })));
  });
});
