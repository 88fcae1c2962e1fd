import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import type { SmsMessage, SmsPort } from '../../server/providers/sms/port.js';
import { alertRow, eventually, ownerWithContacts, postAlert, usageOf } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { secondConnection } from './second-process.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe(`SMS dispatcher (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // The real alerts posted here never reach their escalation while the clock is moved on:
    // its second round of SMS would be taken by the dispatchers these tests start themselves.
    t = await buildTestApp({ ESCALATION_AFTER_SECONDS: String(30 * 24 * 3600) });
  });
  afterAll(async () => {
    await t.close();
  });

  const deliveriesOf = (alertId: string) =>
    t.app.db.selectFrom('deliveries').selectAll().where('alert_id', '=', alertId).orderBy('contact_name').execute();
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);

  /** Writes an alert with deliveries whose jobs are due at `dueAt`, without waking the app's engine. */
  async function queueAlert(userId: string, phones: string[], dueAt: number): Promise<string> {
    const now = t.clock.now();
    const alertId = newId();
    const deliveries = phones.map((phone, i) =>
      queuedDelivery({
        alertId,
        recipient: { contact_name: `Contact ${String(i).padStart(3, '0')}`, phone_number: phone },
        body: 'EMERGENCY: test needs help now.',
        now,
      }),
    );
    await insertAlert(
      t.app.db,
      alertRow(userId, { id: alertId, message: 'EMERGENCY: test needs help now.', created_at: now }),
      deliveries,
      { jobs: deliveries.map((d) => ({ ...smsJob(d, now), dueAt })) },
    );
    return alertId;
  }

  it('retries a provider failing twice with backoff and delivers once', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351981000001']] });
    t.sms.failNext(2, 'carrier unreachable');
    const alert = (await postAlert(t.app, owner.token)).json();
    await t.app.dispatcher.drain();
    expect(await deliveriesOf(alert.id)).toMatchObject([
      { status: 'queued', attempts: 1, last_error: 'carrier unreachable' },
    ]);
    // Not due yet: nothing is attempted before the backoff has passed.
    t.clock.advance(5_000);
    await t.app.dispatcher.drain();
    expect((await deliveriesOf(alert.id))[0]?.attempts).toBe(1);

    t.clock.advance(15_000);
    await t.app.dispatcher.drain();
    expect(await deliveriesOf(alert.id)).toMatchObject([{ status: 'queued', attempts: 2 }]);
    t.clock.advance(40_000);
    await t.app.dispatcher.drain();
    const [sent] = await deliveriesOf(alert.id);
    expect(sent).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    expect(smsTo('+351981000001')).toHaveLength(1);
    const final = await eventually(
      () => deliveriesOf(alert.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    expect(final[0]?.status).toBe('delivered');
    expect(smsTo('+351981000001')).toHaveLength(1);
  });

  it('keeps trying for at least 10 minutes and 5 attempts, then fails with the provider reason', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351981000002']] });
    t.sms.failNext(1000, 'number not reachable');
    const started = t.clock.now();
    const alert = (await postAlert(t.app, owner.token)).json();
    let rows = await deliveriesOf(alert.id);
    for (let i = 0; i < 60 && rows[0]?.status !== 'failed'; i++) {
      await t.app.dispatcher.drain();
      rows = await deliveriesOf(alert.id);
      if (rows[0]?.status !== 'failed') t.clock.advance(MINUTE / 2);
    }
    t.sms.failNext(0);
    expect(rows[0]).toMatchObject({ status: 'failed', last_error: 'number not reachable' });
    expect(rows[0]?.attempts).toBeGreaterThanOrEqual(5);
    expect(t.clock.now() - started).toBeGreaterThanOrEqual(10 * MINUTE);
    expect(smsTo('+351981000002')).toEqual([]);
    const shown = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/`,
    });
    expect(shown.json().deliveries).toEqual([{ contact_name: 'Ana', status: 'failed' }]);
  });

  it('picks up a due retry on its periodic sweep, without being asked', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351981000003']] });
    t.sms.failNext(1);
    const alert = (await postAlert(t.app, owner.token)).json();
    await t.app.dispatcher.drain();
    t.clock.advance(MINUTE);
    const rows = await eventually(
      () => deliveriesOf(alert.id),
      (r) => r[0]?.status === 'sent' || r[0]?.status === 'delivered',
    );
    expect(rows[0]?.attempts).toBe(2);
  });

  it('resumes deliveries a dispatcher left mid-send: every contact gets exactly one SMS', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const phones = ['+351982000001', '+351982000002', '+351982000003'];
    // Due in the future for the app's own dispatcher, now for the one that will die.
    const alertId = await queueAlert(owner.user.id, phones, t.clock.now() + HOUR);
    const calls: SmsMessage[] = [];
    const dying: SmsPort = {
      name: 'outbox',
      send(message) {
        calls.push(message);
        // The first goes out; the process dies before the provider answers the others.
        return calls.length === 1 ? t.sms.send(message) : new Promise(() => {});
      },
      onStatus() {},
    };
    const first = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: dying,
      clock: new ManualClock(t.clock.now() + HOUR),
    });
    first.start();
    await eventually(
      async () => calls.length,
      (n) => n === 3,
    );
    // The answered send is recorded with those that finish beside it, a turn later.
    await eventually(
      () => deliveriesOf(alertId),
      (rows) => rows.some((d) => d.status === 'sent'),
    );
    await first.stop(0);
    expect((await deliveriesOf(alertId)).map((d) => d.status).sort()).toEqual(['sending', 'sending', 'sent']);

    // A restarted process takes over once the dead one's lease has run out.
    t.clock.advance(HOUR + 2 * MINUTE);
    const restarted = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: t.sms,
      clock: t.clock,
    });
    restarted.start();
    await restarted.drain();
    await restarted.stop();
    for (const phone of phones) expect(smsTo(phone)).toHaveLength(1);
    expect((await deliveriesOf(alertId)).every((d) => d.status === 'sent' || d.status === 'delivered')).toBe(true);
  });

  it('sends to all contacts at once, never more than its concurrency', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const phones = Array.from({ length: 9 }, (_, i) => `+35198300000${i}`);
    await queueAlert(owner.user.id, phones, t.clock.now() + HOUR);
    let active = 0;
    let peak = 0;
    let started = 0;
    let done = 0;
    let released = 0;
    const slow: SmsPort = {
      name: 'outbox',
      async send(message) {
        active += 1;
        peak = Math.max(peak, active);
        const mine = ++started;
        // A provider that answers only once every send the dispatcher may run at once is in flight.
        if (active >= Math.min(4, phones.length - done)) released = started;
        await vi.waitFor(() => expect(released).toBeGreaterThanOrEqual(mine), { timeout: 5_000, interval: 2 });
        active -= 1;
        done += 1;
        return { providerMessageId: `SMc-${message.reference}` };
      },
      onStatus() {},
    };
    const clock = new ManualClock(t.clock.now() + HOUR);
    const dispatcher = createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: slow, clock, concurrency: 4 });
    await dispatcher.drain();
    expect(peak).toBe(4);
  });

  it('sends each of 200 deliveries exactly once with two dispatchers on two connections', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const phones = Array.from({ length: 200 }, (_, i) => `+35199${String(i).padStart(7, '0')}`);
    const alertId = await queueAlert(owner.user.id, phones, t.clock.now() + HOUR);
    // A second, independent connection pool on the same database, as another server process would have.
    const other = await secondConnection(t);
    const sent: string[][] = [[], []];
    const port = (index: 0 | 1): SmsPort => ({
      name: 'outbox',
      async send(message) {
        // A provider that answers after a random number of turns of the event loop, so the two
        // dispatchers' sends interleave.
        for (let turn = Math.floor(Math.random() * 4); turn >= 0; turn -= 1) await new Promise(setImmediate);
        sent[index]?.push(message.reference);
        return { providerMessageId: `SM${index}-${message.reference}` };
      },
      onStatus() {},
    });
    const clock = new ManualClock(t.clock.now() + 2 * HOUR);
    const dispatchers = [
      createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: port(0), clock }),
      createDispatcher({ db: other.db, dialect: other.dialect, sms: port(1), clock, concurrency: 7 }),
    ];
    try {
      await Promise.all(dispatchers.map((d) => d.drain()));
    } finally {
      await other.close();
    }
    const all = [...(sent[0] ?? []), ...(sent[1] ?? [])];
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    expect(sent[0]?.length).toBeGreaterThan(0);
    expect(sent[1]?.length).toBeGreaterThan(0);
    const rows = await deliveriesOf(alertId);
    expect(rows.every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
    expect(await usageOf(t.app, owner.user.id)).toHaveLength(200);
  });
});
