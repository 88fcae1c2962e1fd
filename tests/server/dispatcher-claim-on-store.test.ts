import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../server/db/schema.js';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { createDispatcher, type Dispatcher } from '../../server/features/alerts/dispatcher.js';
import { storeAlert } from '../../server/features/alerts/service.js';
import { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import type { SmsMessage, SmsPort } from '../../server/providers/sms/port.js';
import { alertRow, eventually, ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LEASE = MINUTE;

describe(`deliveries claimed as they are stored (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ ESCALATION_AFTER_SECONDS: String(30 * 24 * 3600) });
  });
  afterAll(async () => {
    await t.close();
  });

  const rowsOf = (alertId: string) =>
    t.app.db
      .selectFrom('deliveries')
      .select(['phone_number', 'status', 'attempts', 'claimed_until'])
      .where('alert_id', '=', alertId)
      .orderBy('phone_number')
      .execute();

  /**
   * An alert of `phones` as the route stores it, through `dispatcher`: due an hour ahead, so the
   * app's own dispatcher never takes what is left queued (these dispatchers' clocks are an hour on).
   */
  async function store(dispatcher: Dispatcher, phones: string[], alongside?: () => Promise<void>) {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const now = t.clock.now();
    const alert = alertRow(owner.user.id, { id: newId(), created_at: now });
    const deliveries: NewDelivery[] = phones.map((phone, i) => ({
      ...queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: `Contact ${i}`, phone_number: phone },
        body: 'EMERGENCY: test needs help now.',
        now,
      }),
      next_attempt_at: now + HOUR,
    }));
    const stored = storeAlert({ ...t.app, dispatcher }, alert, deliveries, now, alongside);
    return { alertId: alert.id, stored };
  }

  /** A provider that holds every send until `release()`, and notes each. */
  function heldProvider() {
    const sent: SmsMessage[] = [];
    let release: () => void = () => {};
    const open = new Promise<void>((resolve) => (release = resolve));
    const port: SmsPort = {
      name: 'outbox',
      async send(message) {
        sent.push(message);
        await open;
        return { providerMessageId: `SMs-${message.reference}` };
      },
      onStatus() {},
    };
    return { port, sent, release: () => release() };
  }

  const dispatcherWith = (sms: SmsPort, clock: ManualClock, concurrency: number) => {
    const dispatcher = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms,
      clock,
      concurrency,
      leaseMs: LEASE,
    });
    dispatcher.start();
    return dispatcher;
  };

  it('stores as many as it has free slots claimed and starts them at commit; the rest waits queued', async () => {
    const provider = heldProvider();
    const clock = new ManualClock(t.clock.now() + HOUR);
    const dispatcher = dispatcherWith(provider.port, clock, 2);
    const phones = ['+351984000001', '+351984000002', '+351984000003'];
    const { alertId, stored } = await store(dispatcher, phones);
    const result = await stored;
    expect(result.created && result.deliveries.map((d) => d.status)).toEqual(['sending', 'sending', 'queued']);
    // Both sends began with no claim: they were in the provider's hands before anything else ran.
    await eventually(
      async () => provider.sent.length,
      (n) => n === 2,
    );
    expect(await rowsOf(alertId)).toEqual([
      { phone_number: phones[0], status: 'sending', attempts: 1, claimed_until: clock.now() + LEASE },
      { phone_number: phones[1], status: 'sending', attempts: 1, claimed_until: clock.now() + LEASE },
      { phone_number: phones[2], status: 'queued', attempts: 0, claimed_until: null },
    ]);
    // The first slot they free takes the third, with nothing else asking.
    provider.release();
    await eventually(
      async () => (await rowsOf(alertId)).map((d) => d.status),
      (statuses) => statuses.every((status) => status === 'sent'),
    );
    await dispatcher.stop();
    expect(provider.sent.map((m) => m.to).sort()).toEqual(phones);
    expect((await rowsOf(alertId)).map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
      ['sent', 1],
    ]);
  });

  it('gives back the slots of a store that rolled back, and claims nothing for a stopped dispatcher', async () => {
    const provider = heldProvider();
    provider.release();
    const clock = new ManualClock(t.clock.now() + HOUR);
    const dispatcher = dispatcherWith(provider.port, clock, 2);
    const failed = await store(dispatcher, ['+351984000011', '+351984000012'], async () => {
      throw new Error('the check-in moved on');
    });
    await expect(failed.stored).rejects.toThrow('the check-in moved on');
    expect(await rowsOf(failed.alertId)).toEqual([]);
    const second = await store(dispatcher, ['+351984000013', '+351984000014']);
    const result = await second.stored;
    expect(result.created && result.deliveries.map((d) => d.status)).toEqual(['sending', 'sending']);
    await dispatcher.stop();
    const after = await store(dispatcher, ['+351984000015']);
    const left = await after.stored;
    expect(left.created && left.deliveries.map((d) => d.status)).toEqual(['queued']);
    expect(provider.sent.map((m) => m.to).sort()).toEqual(['+351984000013', '+351984000014']);
    // What it left queued is sent by whichever dispatcher runs next.
    const next = dispatcherWith(provider.port, clock, 2);
    await next.drain();
    await next.stop();
    expect(provider.sent.map((m) => m.to).sort()).toEqual(['+351984000013', '+351984000014', '+351984000015']);
  });

  it('a process that dies between commit and send: another takes the claimed SMS over when the lease ends, once each', async () => {
    const dying: SmsMessage[] = [];
    const clock = new ManualClock(t.clock.now() + HOUR);
    // Its process ends before it sends anything: the claimed rows are stored, then nothing.
    const dead = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: {
        name: 'outbox',
        send(message) {
          dying.push(message);
          return new Promise(() => {});
        },
        onStatus() {},
      },
      clock,
      leaseMs: LEASE,
    });
    dead.start();
    const phones = ['+351984000021', '+351984000022'];
    const { alertId, stored } = await store(
      { ...dead, claimOnStore: (rows, user) => noStart(dead, rows, user) },
      phones,
    );
    await stored;
    expect((await rowsOf(alertId)).map((d) => d.status)).toEqual(['sending', 'sending']);
    await dead.stop(0);
    expect(dying).toEqual([]);

    clock.advance(LEASE + 1);
    const provider = heldProvider();
    provider.release();
    const restarted = dispatcherWith(provider.port, clock, 10);
    await restarted.drain();
    await restarted.stop();
    expect(provider.sent.map((m) => m.to).sort()).toEqual(phones);
    expect((await rowsOf(alertId)).map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 2],
      ['sent', 2],
    ]);
  });
});

/** The dispatcher's claim on store with a start that never comes: the process died after commit. */
function noStart(dispatcher: Dispatcher, rows: NewDelivery[], userId: string) {
  const claim = dispatcher.claimOnStore(rows, userId);
  return { rows: claim.rows, start() {}, cancel: claim.cancel };
}
