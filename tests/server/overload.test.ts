import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import type { Load } from '../../server/plugins/overload.js';
import { lisbonAt, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp, type TestApp } from './helper.js';

const MB = 2 ** 20;
const CALM: Load = { eventLoopDelayMs: 0, heapUsedBytes: 50 * MB, rssBytes: 100 * MB };

/** Every kind of request but an alert being sent: reads, a HEAD, another POST. */
const others = (t: TestApp, token: string) =>
  Promise.all([
    t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` }),
    t.app.inject({ method: 'HEAD', url: `/api/emergency/public/${token}/` }),
    t.app.inject({ method: 'GET', url: '/api/health' }),
    t.app.inject({ method: 'POST', url: '/api/live/some-public-id/ack/', payload: {} }),
  ]);

const sendAlert = (t: TestApp, token: string) => postAlert(t.app, token, { mode: 'real', location: lisbonAt(t.app) });

/** A 503 in the API's error shape, with when to come back. */
function expectOverloaded(res: Awaited<ReturnType<TestApp['app']['inject']>>) {
  expect(res.statusCode).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  if (res.body) expect(res.json()).toEqual({ detail: expect.stringMatching(/overloaded/), code: 'overloaded' });
}

describe(`load shedding: alerts are refused last (${dbLabel})`, () => {
  let load: Load = CALM;
  // The thresholds' defaults for the event-loop delay (1000 ms, alerts 3000 ms); RSS set here.
  const t = suiteApp({ OVERLOAD_RSS_MB: '800', OVERLOAD_ALERT_RSS_MB: '1500' }, undefined, { loadProbe: () => load });
  beforeEach(() => {
    load = CALM;
  });

  it('under pressure refuses reads and other requests with 503 while an alert sent at the same moment goes out', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000001']] });
    load = { ...CALM, eventLoopDelayMs: 1500 };
    const [sent, responses] = await Promise.all([sendAlert(t, owner.token), others(t, owner.token)]);
    for (const res of responses) expectOverloaded(res);
    expect(sent.statusCode, sent.body).toBe(201);
    const queued = await t.app.db
      .selectFrom('deliveries')
      .select('phone_number')
      .where('alert_id', '=', sent.json().id)
      .execute();
    expect(queued).toEqual([{ phone_number: '+351930000001' }]);
    await t.app.dispatcher.drain();
    expect(t.app.outbox.sms.map((sms) => sms.to)).toContain('+351930000001');
  });

  it('at the higher level refuses the alert too, with Retry-After, and stores nothing', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000002']] });
    load = { ...CALM, eventLoopDelayMs: 3500 };
    expectOverloaded(await sendAlert(t, owner.token));
    for (const res of await others(t, owner.token)) expectOverloaded(res);
    const alerts = await t.app.db.selectFrom('alerts').select('id').where('user_id', '=', owner.user.id).execute();
    expect(alerts).toEqual([]);
  });

  it('reads memory against its own thresholds from the config', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000003']] });
    load = { ...CALM, rssBytes: 1000 * MB };
    expectOverloaded((await others(t, owner.token))[0]!);
    expect((await sendAlert(t, owner.token)).statusCode).toBe(201);
    load = { ...CALM, rssBytes: 1600 * MB };
    expectOverloaded(await sendAlert(t, owner.token));
  });

  it('answers both again once the pressure has gone', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000004']] });
    load = { ...CALM, eventLoopDelayMs: 5000 };
    expectOverloaded(await sendAlert(t, owner.token));
    load = CALM;
    const [sent, [read]] = await Promise.all([sendAlert(t, owner.token), others(t, owner.token)]);
    expect(sent.statusCode).toBe(201);
    expect(read?.statusCode).toBe(200);
  });
});

describe(`load shedding on the process's own samples (${dbLabel})`, () => {
  // Any running process holds more than 1 MB: every sample is over the first threshold, and
  // with the alert threshold off an alert is never refused on it.
  const t = suiteApp({ OVERLOAD_RSS_MB: '1', OVERLOAD_ALERT_RSS_MB: '0' });

  it("sheds reads once the sampler's first sample is in, and still takes alerts", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000005']] });
    await vi.waitFor(
      async () => expectOverloaded(await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` })),
      { timeout: 5000, interval: 100 },
    );
    expect((await sendAlert(t, owner.token)).statusCode).toBe(201);
  });
});

describe('load thresholds in the config', () => {
  it('refuses an alert threshold that is not above the one for everything else', () => {
    expect(() => loadConfig({ OVERLOAD_EVENT_LOOP_DELAY_MS: '3000' })).toThrow(
      /OVERLOAD_ALERT_EVENT_LOOP_DELAY_MS \(3000\) must be above OVERLOAD_EVENT_LOOP_DELAY_MS \(3000\)/,
    );
    expect(() => loadConfig({ OVERLOAD_RSS_MB: '900', OVERLOAD_ALERT_RSS_MB: '500' })).toThrow(ConfigError);
    expect(() => loadConfig({ OVERLOAD_HEAP_USED_MB: 'lots' })).toThrow(/OVERLOAD_HEAP_USED_MB must be a whole number/);
    const config = loadConfig({ OVERLOAD_HEAP_USED_MB: '0', OVERLOAD_RSS_MB: '900', OVERLOAD_ALERT_RSS_MB: '0' });
    expect(config.OVERLOAD_EVENT_LOOP_DELAY_MS).toBeLessThan(config.OVERLOAD_ALERT_EVENT_LOOP_DELAY_MS);
    expect(config.OVERLOAD_ALERT_HEAP_USED_MB).toBeGreaterThan(0);
  });
});
