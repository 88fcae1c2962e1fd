import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import type { SmsMessage } from '../../server/providers/sms/port.js';
import { alertSms, expectAllSentOnce, sendAlert, subscriber } from './faults/world.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const MINUTE = 60_000;

describe(`SMS provider faults (${dbLabel})`, () => {
  let t: TestApp;
  beforeEach(async () => {
    // The real alerts never reach their escalation while the clock is moved on: its second round
    // of SMS would add to the deliveries counted here.
    t = await buildTestApp({ BENCH_NO_RATE_LIMIT: '1', ESCALATION_AFTER_SECONDS: String(30 * 24 * 3600) });
  });
  afterEach(async () => {
    await t.close();
  });

  it('provider down for a while, then back: every delivery sent once, retries counted, statuses shown', async () => {
    // The real outbox adapter behind a switch: while down, every send fails as a provider outage would.
    const send = t.sms.send.bind(t.sms);
    let down = true;
    let refused = 0;
    t.sms.send = async (message: SmsMessage) => {
      if (down) {
        // Only the alerts' SMS are counted: the contacts' invitations are refused too, but are not deliveries.
        if (!message.reference.startsWith('notice-')) refused += 1;
        throw new Error('503 Service Unavailable');
      }
      return send(message);
    };

    const people = [await subscriber(t.app), await subscriber(t.app), await subscriber(t.app)];
    const alerts: { token: string; id: string }[] = [];
    for (const person of people) {
      const res = await sendAlert(t.app, person.token);
      expect(res.statusCode).toBe(201);
      alerts.push({ token: person.token, id: res.json().id });
    }
    const test = await sendAlert(t.app, people[0]!.token, { mode: 'test' });
    expect(test.statusCode).toBe(201);
    await t.app.dispatcher.drain();
    // Two more rounds of the outage, each after the backoff has passed.
    for (let round = 0; round < 2; round += 1) {
      t.clock.advance(5 * MINUTE);
      await t.app.dispatcher.drain();
    }
    expect(refused).toBe(3 * 10);
    const waiting = await t.app.db.selectFrom('deliveries').select(['status', 'attempts', 'last_error']).execute();
    expect(waiting).toHaveLength(10);
    for (const d of waiting)
      expect(d).toEqual({ status: 'queued', attempts: 3, last_error: '503 Service Unavailable' });
    // While it is down the page shows the alert as still queued, not failed.
    const during = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${alerts[0]!.token}/alerts/${alerts[0]!.id}/`,
    });
    expect(during.json().deliveries.map((d: { status: string }) => d.status)).toEqual(['queued', 'queued', 'queued']);

    down = false;
    t.clock.advance(10 * MINUTE);
    await t.app.dispatcher.drain();
    expect(await expectAllSentOnce(t.app.db, t.app.outbox, 3)).toBe(10);
    const after = await t.app.db.selectFrom('deliveries').select(['attempts', 'last_error']).execute();
    for (const d of after) expect(d).toEqual({ attempts: 4, last_error: null });
    // One usage record per delivery: a retried SMS is billed once.
    const usage = await t.app.db.selectFrom('usage_records').select('delivery_id').execute();
    expect(new Set(usage.map((u) => u.delivery_id)).size).toBe(usage.length);
    expect(usage.length).toBe(10);
    for (const { token, id } of alerts) {
      const res = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/alerts/${id}/` });
      for (const d of res.json().deliveries) expect(['sent', 'delivered']).toContain(d.status);
    }
    // Replaying a request sent during the outage sends nothing more.
    await t.app.dispatcher.drain();
    expect(await alertSms(t.app.db, t.app.outbox)).toHaveLength(10);
  });

  it('provider that hangs: the send times out, the delivery is retried and sent once', async () => {
    // The app's own dispatcher steps aside; one with a short timeout runs the same code.
    await t.app.dispatcher.stop();
    const send = t.sms.send.bind(t.sms);
    let hangs = 4;
    const hanging = {
      ...t.sms,
      send: (message: SmsMessage) => {
        if (hangs > 0) {
          hangs -= 1;
          return new Promise<never>(() => {});
        }
        return send(message);
      },
    };
    const dispatcher = createDispatcher({
      db: t.app.db,
      dialect: t.app.dialect,
      sms: hanging,
      clock: t.clock,
      sendTimeoutMs: 150,
      leaseMs: 5 * MINUTE,
    });
    const person = await subscriber(t.app, 3);
    const first = await sendAlert(t.app, person.token);
    const second = await sendAlert(t.app, person.token);
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);

    const started = Date.now();
    await dispatcher.runOnce();
    expect(Date.now() - started).toBeLessThan(5_000);
    const timedOut = await t.app.db
      .selectFrom('deliveries')
      .select(['status', 'last_error'])
      .where('last_error', 'is not', null)
      .execute();
    expect(timedOut).toHaveLength(4);
    for (const d of timedOut)
      expect(d).toEqual({ status: 'queued', last_error: 'provider did not answer within 150 ms' });
    expect(await alertSms(t.app.db, t.app.outbox)).toHaveLength(2);

    t.clock.advance(5 * MINUTE);
    await dispatcher.drain();
    expect(await expectAllSentOnce(t.app.db, t.app.outbox, 3)).toBe(6);
    await dispatcher.stop();
  });
});
