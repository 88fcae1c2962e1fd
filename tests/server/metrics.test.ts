import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { uuidV7Time } from '../../server/features/metrics/instrument.js';
import { jobRow } from '../../server/jobs/index.js';
import { orderedId } from '../../server/lib/ids.js';
import { alertRow, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, suiteApp, type TestApp } from './helper.js';

const METRICS_TOKEN = 'metrics-token-for-the-tests-0123456789';

const scrape = (t: TestApp, token: string | null = METRICS_TOKEN) =>
  t.app.inject({ url: '/metrics', headers: token === null ? {} : { authorization: `Bearer ${token}` } });

/** The value of one sample of the exposition text (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = match[2] ? match[2].split(',') : [];
    if (wanted.every((pair) => have.includes(pair)) && have.length === wanted.length) return Number(match[3]);
  }
  return undefined;
}

const metricsText = async (t: TestApp) => {
  const res = await scrape(t);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('text/plain');
  return res.body;
};

describe(`GET /metrics without METRICS_TOKEN (${dbLabel})`, () => {
  const t = suiteApp({}, undefined, { pages: true });

  it('answers 404 like an unknown path, with or without a token, and never the app page', async () => {
    for (const token of [null, METRICS_TOKEN]) {
      const res = await scrape(t, token);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
  });
});

describe(`GET /metrics behind METRICS_TOKEN (${dbLabel})`, () => {
  const t = suiteApp({ METRICS_TOKEN });

  it('refuses no token and a wrong one with 401, and answers the right one in the Prometheus format', async () => {
    expect((await scrape(t, null)).statusCode).toBe(401);
    expect((await scrape(t, `${METRICS_TOKEN}x`)).statusCode).toBe(401);
    const basic = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}` },
    });
    expect(basic.statusCode).toBe(401);
    const text = await metricsText(t);
    expect(text).toContain('# TYPE alerta_press_to_sms_handed_over_seconds histogram');
    // The event-loop delay, from prom-client's default metrics.
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts alerts stored by mode, the SMS handed over and how long each waited since the press', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['TEST Ana', '+351912345678'],
        ['Rui Costa', '+351913456789'],
      ],
    });
    const key = randomUUID();
    expect(
      (await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'unavailable' }, key))
        .statusCode,
    ).toBe(201);
    // The same press again is the same alert: not counted twice.
    expect(
      (await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'unavailable' }, key))
        .statusCode,
    ).toBe(200);
    const test = await postAlert(t.app, owner.token, { mode: 'test', location: null, location_error: 'unavailable' });
    expect(test.statusCode, test.body).toBe(201);
    await t.app.dispatcher.drain();

    const text = await metricsText(t);
    expect(sample(text, 'alerta_alerts_stored_total', { mode: 'real' })).toBe(1);
    expect(sample(text, 'alerta_alerts_stored_total', { mode: 'test' })).toBe(1);
    // Two contacts for the real alert, and the test alert's one.
    const handedOver = sample(text, 'alerta_sms_sends_total', { outcome: 'handed_over' });
    expect(handedOver).toBe(3);
    expect(sample(text, 'alerta_press_to_sms_handed_over_seconds_count')).toBe(handedOver);
    expect(sample(text, 'alerta_press_to_sms_handed_over_seconds_bucket', { le: '+Inf' })).toBe(handedOver);
    expect(sample(text, 'alerta_provider_errors_total', { provider: 'sms' })).toBeUndefined();
  });

  it('counts a provider failure as a failed send and a provider error', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana Silva', '+351912345678']] });
    const before = sample(await metricsText(t), 'alerta_sms_sends_total', { outcome: 'failed' }) ?? 0;
    t.sms.failNext(1);
    expect(
      (await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'unavailable' })).statusCode,
    ).toBe(201);
    await t.app.dispatcher.drain();
    const text = await metricsText(t);
    expect(sample(text, 'alerta_sms_sends_total', { outcome: 'failed' })).toBe(before + 1);
    expect(sample(text, 'alerta_provider_errors_total', { provider: 'sms' })).toBeGreaterThanOrEqual(1);
  });

  it('times every request by method, route pattern and status code, never by its URL', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana Silva', '+351912345670']] });
    const send = (status: number) => ({
      method: 'POST',
      route: '/api/emergency/public/:token/alerts/',
      status_code: String(status),
    });
    const count = (text: string, labels: Record<string, string>) =>
      sample(text, 'alerta_http_request_duration_seconds_count', labels) ?? 0;
    const before = await metricsText(t);
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
    expect((await postAlert(t.app, owner.token, { mode: 'panic' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/nowhere/${owner.token}/` })).statusCode).toBe(404);
    const text = await metricsText(t);
    expect(count(text, send(201))).toBe(count(before, send(201)) + 1);
    expect(count(text, send(400))).toBe(count(before, send(400)) + 1);
    expect(sample(text, 'alerta_http_request_duration_seconds_bucket', { ...send(201), le: '+Inf' })).toBe(
      count(text, send(201)),
    );
    expect(sample(text, 'alerta_http_request_duration_seconds_sum', send(201))).toBeGreaterThan(0);
    expect(count(text, { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(
      count(before, { method: 'GET', route: 'unmatched', status_code: '404' }) + 1,
    );
    expect(text).not.toContain(owner.token);
  });

  it('reports every metric the Grafana dashboard draws', async () => {
    const text = await metricsText(t);
    const reported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    const dashboard = JSON.parse(
      readFileSync(new URL('../../deploy/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const drawn = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((target) => [...target.expr.matchAll(/\b((?:alerta|nodejs|process)_\w+)/g)]),
    );
    expect(drawn.map((match) => match[1])).toContain('alerta_http_request_duration_seconds_bucket');
    for (const [, name = ''] of drawn) {
      const metric = name.replace(/_(bucket|count|sum)$/, '');
      expect(reported.has(metric) || reported.has(name), name).toBe(true);
    }
  });

  it('counts rate-limit refusals by route', async () => {
    const url = '/api/users/resend-verification/';
    let refused = 0;
    for (let i = 0; i < 8; i += 1) {
      const res = await t.app.inject({ method: 'POST', url, payload: { email: 'x' }, remoteAddress: '10.9.8.7' });
      if (res.statusCode === 429) refused += 1;
    }
    expect(refused).toBeGreaterThan(0);
    expect(sample(await metricsText(t), 'alerta_rate_limited_total', { route: url })).toBe(refused);
  });
});

describe(`the jobs the metrics read from the database (${dbLabel})`, () => {
  it('reports queued and failed SMS and jobs by kind, how long the oldest due one has waited, and jobs of kinds no handler knows', async () => {
    const t = await buildTestApp({ METRICS_TOKEN });
    try {
      // Nothing claims or runs the rows below while the test reads them.
      await t.app.periodic.stop();
      const owner = await ownerWithContacts(t.app);
      const now = t.clock.now();
      const alert = alertRow(owner.user.id, { created_at: now - 60_000 });
      await t.app.db.insertInto('alerts').values(alert).execute();
      const sms = (at: number, phone: string) =>
        queuedDelivery({
          alertId: alert.id,
          recipient: { contact_name: 'Ana', phone_number: phone },
          body: 'help',
          now: at,
        });
      const failed = { ...sms(now - 50_000, '+351910000003'), status: 'failed' as const };
      const waiting = [
        sms(now - 45_000, '+351910000001'),
        sms(now - 5_000, '+351910000002'),
        // Waiting for its retry: queued, its job not yet due.
        sms(now + 30_000, '+351910000004'),
        { ...sms(now - 1_000, '+351910000005'), kind: 'all_clear' as const },
      ];
      await t.app.db
        .insertInto('deliveries')
        .values([...waiting, failed])
        .execute();
      // Each SMS's job, due when its delivery was made (a retry's when it was set).
      await t.app.db
        .insertInto('jobs')
        .values(waiting.map((d) => jobRow(smsJob(d, d.created_at))))
        .execute();
      await t.app.db
        .insertInto('jobs')
        .values([
          jobRow({ kind: 'metrics-test', subject: 'a', dueAt: now - 12_000, now }),
          jobRow({ kind: 'metrics-test', subject: 'b', dueAt: now + 60_000, now }),
          // Parked after its last attempt: failed, and no longer waiting to be due.
          { ...jobRow({ kind: 'metrics-test', subject: 'c', dueAt: now - 600_000, now }), failed_at: now - 1000 },
        ])
        .execute();

      const text = await metricsText(t);
      expect(sample(text, 'alerta_jobs_queued', { kind: 'sms:alert' })).toBe(3);
      expect(sample(text, 'alerta_jobs_queued', { kind: 'sms:all_clear' })).toBe(1);
      expect(sample(text, 'alerta_jobs_failed', { kind: 'sms:alert' })).toBe(1);
      expect(sample(text, 'alerta_jobs_oldest_due_seconds', { kind: 'sms:alert' })).toBe(45);
      expect(sample(text, 'alerta_jobs_oldest_due_seconds', { kind: 'sms:all_clear' })).toBe(1);
      expect(sample(text, 'alerta_jobs_queued', { kind: 'job:metrics-test' })).toBe(2);
      expect(sample(text, 'alerta_jobs_failed', { kind: 'job:metrics-test' })).toBe(1);
      expect(sample(text, 'alerta_jobs_oldest_due_seconds', { kind: 'job:metrics-test' })).toBe(12);
      // A kind the registry does not list: no handler runs it, and its jobs are said by kind.
      expect(sample(text, 'alerta_jobs_unknown_kind', { kind: 'metrics-test' })).toBe(3);
      expect(sample(text, 'alerta_jobs_unknown_kind', { kind: 'sms' })).toBeUndefined();

      // Handed over: no longer queued, and the next oldest is the one reported.
      await t.app.db
        .updateTable('deliveries')
        .set({ status: 'sent' })
        .where('phone_number', '=', '+351910000001')
        .execute();
      const after = await metricsText(t);
      expect(sample(after, 'alerta_jobs_queued', { kind: 'sms:alert' })).toBe(2);
      expect(sample(after, 'alerta_jobs_oldest_due_seconds', { kind: 'sms:alert' })).toBe(5);
    } finally {
      await t.close();
    }
  });
});

describe('the time a delivery id carries', () => {
  it('reads the millisecond of a UUIDv7, and nothing from any other id', () => {
    const before = Date.now();
    const at = uuidV7Time(orderedId());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(uuidV7Time(randomUUID())).toBeNull();
    expect(uuidV7Time('SM123')).toBeNull();
  });
});
