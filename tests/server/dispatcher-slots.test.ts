import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import type { PaymentsPort } from '../../server/providers/payments/port.js';
import type { SmsMessage, SmsPort } from '../../server/providers/sms/port.js';
import { alertRow, eventually, ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { watchStatements } from './statements-seen.js';

const HOUR = 60 * 60_000;

// A slot bounds the SMS the provider holds at once. It is freed as the provider answers: writing
// the outcome and reporting a billable SMS to the meter (Stripe, a network call of its own) go on
// beside the next sends, never ahead of them. Sends handed to the provider together finish
// together, and the slots they free are filled by one claim, not one claim per slot: a backlog (a
// regional disaster, the provider the bound) costs the database one claim per batch of sends.
describe(`the dispatcher's slots and claims behind a backlog (${dbLabel})`, () => {
  let t: TestApp;
  // An hour ahead of the app's clock: the app's own dispatcher finds none of these SMS due.
  let clock: ManualClock;
  beforeAll(async () => {
    t = await buildTestApp();
    clock = new ManualClock(t.clock.now() + HOUR);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A provider that takes each SMS and answers the ones waiting when the test answers them, all at once. */
  function batchedProvider() {
    const sent: SmsMessage[] = [];
    let waiting: (() => void)[] = [];
    const port: SmsPort = {
      name: 'outbox',
      async send(message) {
        sent.push(message);
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { providerMessageId: `SM${newId()}` };
      },
      async find() {
        return undefined;
      },
      onStatus() {},
    };
    const answerAll = () => {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    };
    return { port, sent, answerAll, waiting: () => waiting.length };
  }

  it('fills the slots a batch of sends frees with one claim, and sends each SMS once', async () => {
    const concurrency = 4;
    const total = 3 * concurrency;
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const now = clock.now();
    const alert = alertRow(owner.user.id, { created_at: now });
    const deliveries = Array.from({ length: total }, (_, i) =>
      queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: `Contact ${i}`, phone_number: `+3519720${String(i).padStart(5, '0')}` },
        body: `Help ${newId()}`,
        now,
      }),
    );
    await insertAlert(t.app.db, alert, deliveries, {
      dialect: t.app.dialect,
      jobs: deliveries.map((d) => smsJob(d, now)),
    });

    const provider = batchedProvider();
    const statements = watchStatements();
    const dispatcher = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: provider.port,
      clock,
      concurrency,
    });
    try {
      dispatcher.start();
      for (let batch = 1; batch <= 3; batch += 1) {
        await eventually(
          async () => provider.waiting(),
          (count) => count === concurrency,
        );
        expect(provider.sent).toHaveLength(batch * concurrency);
        provider.answerAll();
      }
      await eventually(
        () => t.app.db.selectFrom('deliveries').select('status').where('alert_id', '=', alert.id).execute(),
        (rows) => rows.every((row) => row.status === 'sent'),
      );
    } finally {
      await dispatcher.stop();
      statements.stop();
    }
    expect(provider.sent.map((sms) => sms.reference).sort()).toEqual(deliveries.map((d) => d.id).sort());
    // This engine's claims of jobs (its clock's time among their values; the app's own has another):
    // the first batch, the two batches that followed a batch of answers, and the one that found
    // nothing left. One claim per freed slot would be 1 + 4 + 4 + 4.
    const claims = statements.seen.filter((s) => s.sql.includes('"lease_token"') && s.sql.includes('arm_0'));
    const ours = claims.filter((s) => s.parameters.includes(now));
    expect(ours.length).toBeGreaterThanOrEqual(3);
    expect(ours.length).toBeLessThanOrEqual(4);
  });

  it('frees a slot as the provider answers: a meter that is slow to answer holds back no SMS', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const now = clock.now();
    await activateSubscription(t.app.db, {
      userId: owner.user.id,
      plan: 'premium',
      now: now - 2,
      provider: 'stripe',
      providerCustomerId: 'cus_slow_meter',
      providerSubscriptionId: `sub_${newId()}`,
    });
    // The account's first real alert is free: the SMS under test, of its second, are billed.
    await insertAlert(t.app.db, alertRow(owner.user.id, { created_at: now - 1 }), [], { dialect: t.app.dialect });
    const alert = alertRow(owner.user.id, { created_at: now });
    const deliveries = [1, 2, 3].map((i) =>
      queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: `Contact ${i}`, phone_number: `+35196460000${i}` },
        body: `Help ${newId()}`,
        now,
      }),
    );
    await insertAlert(t.app.db, alert, deliveries, {
      dialect: t.app.dialect,
      jobs: deliveries.map((d) => smsJob(d, now)),
    });

    const sent: SmsMessage[] = [];
    const sms: SmsPort = {
      name: 'outbox',
      async send(message) {
        sent.push(message);
        return { providerMessageId: `SM${newId()}` };
      },
      onStatus() {},
    };
    // The meter takes each report and answers only when the test lets it.
    const reported: string[] = [];
    let answerMeter = () => {};
    const meterAnswers = new Promise<void>((resolve) => (answerMeter = resolve));
    const meter = {
      name: 'stripe',
      async reportUsage(input: { deliveryId: string }) {
        reported.push(input.deliveryId);
        await meterAnswers;
        return true;
      },
    } as unknown as PaymentsPort;
    const dispatcher = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms,
      clock,
      payments: meter,
      concurrency: 1,
    });
    try {
      dispatcher.start();
      // One slot, and the meter has not answered the first SMS's report: all three are sent all the same.
      const all = await eventually(
        async () => sent.length,
        (count) => count === deliveries.length,
      );
      expect(all).toBe(deliveries.length);
      expect(reported.length).toBeGreaterThanOrEqual(1);
      answerMeter();
      await dispatcher.drain();
    } finally {
      answerMeter();
      await dispatcher.stop();
    }
    expect(sent.map((message) => message.reference).sort()).toEqual(deliveries.map((d) => d.id).sort());
    expect(reported.sort()).toEqual(deliveries.map((d) => d.id).sort());
    const rows = await t.app.db.selectFrom('deliveries').select('status').where('alert_id', '=', alert.id).execute();
    expect(rows.map((row) => row.status)).toEqual(['sent', 'sent', 'sent']);
    const usage = await t.app.db
      .selectFrom('usage_records')
      .select(['billable', 'reported_at'])
      .where(
        'delivery_id',
        'in',
        deliveries.map((d) => d.id),
      )
      .execute();
    expect(usage.map((row) => [Number(row.billable), row.reported_at !== null])).toEqual([
      [1, true],
      [1, true],
      [1, true],
    ]);
  });
});
