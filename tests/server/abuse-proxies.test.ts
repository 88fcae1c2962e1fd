import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, checkProviders, loadConfig } from '../../server/config.js';
import { buildTestApp, createUser, dbLabel, OUTBOX_KEY, outboxJsonPath, suiteApp, type TestApp } from './helper.js';

const TWILIO = { TWILIO_ACCOUNT_SID: 'AC0123', TWILIO_AUTH_TOKEN: 'twilio-token', TWILIO_FROM: '+15005550006' };
const STRIPE = {
  STRIPE_SECRET_KEY: 'sk_test_123',
  STRIPE_WEBHOOK_SECRET: 'whsec_123',
  STRIPE_PRICE_BASIC: 'price_basic',
  STRIPE_PRICE_PREMIUM: 'price_premium',
};

const HOP_COUNT_EXPOSED = { TRUST_PROXY: '2', HOST: '0.0.0.0' };

/** A test-only route that says which client address the server sees. */
const withIpRoute = (app: TestApp['app']) => {
  app.get('/api/test-only/ip', async (request) => ({ ip: request.ip }));
};

describe(`dev pages on this machine only, never through a proxy (${dbLabel})`, () => {
  const t = suiteApp();
  const proxied = suiteApp({ TRUST_PROXY: '1' });

  const get = (app: TestApp['app'], url: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, remoteAddress, headers });
  /** The answer a refused dev page gets: the server's plain 404, as for an address that names nothing. */
  const refused = (res: Awaited<ReturnType<typeof get>>) =>
    res.statusCode === 404 &&
    String(res.headers['content-type']).startsWith('application/json') &&
    res.json().code === 'not_found';

  it('answers the outbox, checkout and portal to a loopback peer with no proxy header, and nobody else', async () => {
    const owner = await createUser(t.app);
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/api/billing/checkout/',
      headers: owner.headers,
      payload: { plan: 'premium' },
    });
    const page = checkout.json().url as string;
    expect(page).toMatch(/^\/dev\/checkout\//);
    for (const url of [outboxJsonPath, `/dev/outbox?key=${OUTBOX_KEY}`, page, '/dev/portal?session=x']) {
      expect(refused(await get(t.app, url, '127.0.0.1')), url).toBe(false);
      for (const [remote, headers] of [
        ['203.0.113.9', {}],
        ['127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }],
        ['127.0.0.1', { forwarded: 'for=127.0.0.1' }],
        ['::1', { 'x-forwarded-host': 'alerta.example' }],
        ['127.0.0.1', { 'x-forwarded-proto': 'https' }],
        // What nginx's plain proxy_pass, Apache, Cloudflare and Akamai send instead.
        ['127.0.0.1', { 'x-real-ip': '203.0.113.9' }],
        ['127.0.0.1', { via: '1.1 proxy' }],
        ['127.0.0.1', { 'cf-connecting-ip': '203.0.113.9' }],
        ['127.0.0.1', { 'true-client-ip': '203.0.113.9' }],
        // And the proxies with names of their own (ingress-nginx, WebLogic's plug-in, others).
        ['127.0.0.1', { 'x-original-forwarded-for': '203.0.113.9' }],
        ['127.0.0.1', { 'x-proxyuser-ip': '203.0.113.9' }],
        ['127.0.0.1', { 'client-ip': '203.0.113.9' }],
      ] as const) {
        const res = await get(t.app, url, remote, headers);
        expect(refused(res), `${url} from ${remote} ${JSON.stringify(headers)}: ${res.statusCode}`).toBe(true);
      }
      // With TRUST_PROXY set, not even a bare loopback request.
      expect(refused(await get(proxied.app, url, '127.0.0.1')), url).toBe(true);
    }
    // Paying from elsewhere activates nothing.
    const pay = await t.app.inject({ method: 'POST', url: `${page}/pay`, remoteAddress: '203.0.113.9' });
    expect(pay.statusCode).toBe(404);
    for (const headers of [
      { 'x-forwarded-for': '198.51.100.1' },
      { 'x-real-ip': '198.51.100.1' },
      { via: '1.1 a' },
      { 'x-original-forwarded-for': '198.51.100.1' },
      { 'x-proxyuser-ip': '198.51.100.1' },
      { 'client-ip': '198.51.100.1' },
    ]) {
      const forwarded = await t.app.inject({ method: 'POST', url: `${page}/pay`, headers });
      expect(forwarded.statusCode).toBe(404);
    }
    // The outbox's reply to a captured call: a plain loopback request reaches it (a bad key press
    // is answered 400), one through a proxy is refused before it is looked at.
    const reply = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `/dev/outbox/calls/none/digits/?key=${OUTBOX_KEY}`,
        headers,
        payload: { digits: 'x' },
        remoteAddress: '127.0.0.1',
      });
    for (const name of ['x-original-forwarded-for', 'x-proxyuser-ip', 'client-ip']) {
      expect(refused(await reply({ [name]: '203.0.113.9' })), name).toBe(true);
    }
    expect((await reply({})).json()).toMatchObject({ code: 'invalid_digits' });
    const me = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: owner.headers });
    expect(me.json().profile.has_premium).toBe(false);
    expect((await t.app.inject({ method: 'POST', url: `${page}/pay` })).json()).toMatchObject({ status: 'paid' });
  });

  it("refuses to start with real SMS and simulated payments, real payments and captured SMS, the benchmarks' switch beside real sends, or a hop count on an open HOST", () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-providers-'));
    try {
      for (const [env, expected] of [
        [TWILIO, /^alerta: Refusing to start: Twilio sends real SMS but payments are simulated/],
        [STRIPE, /^alerta: Refusing to start: Stripe takes real payments but SMS only go to the dev outbox/],
        // The benchmarks' switch would lift every SMS budget on real sends.
        [{ ...TWILIO, ...STRIPE, BENCH_NO_RATE_LIMIT: '1' }, /^alerta: Refusing to start: BENCH_NO_RATE_LIMIT lifts/],
        // A hop count on an address clients reach directly would believe their forged X-Forwarded-For.
        [HOP_COUNT_EXPOSED, /^alerta: Invalid configuration: TRUST_PROXY=2 \(a hop count\).* HOST=0\.0\.0\.0 /],
      ] as const) {
        expect(() => checkProviders(loadConfig({ DATA_DIR: dataDir, ...env }))).toThrow(ConfigError);
        const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
          cwd: path.resolve(import.meta.dirname, '../..'),
          env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env },
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(run.status).toBe(1);
        const lines = run.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(expected);
      }
      // Both real, or both embedded: fine.
      expect(() => checkProviders(loadConfig({ DATA_DIR: dataDir, ...TWILIO, ...STRIPE }))).not.toThrow();
      expect(() => checkProviders(loadConfig({ DATA_DIR: dataDir }))).not.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe(`TRUST_PROXY: hop counts and proxy lists, never the client's own entries (${dbLabel})`, () => {
  const apps: TestApp[] = [];
  const appWith = async (value: string) => {
    const app = await buildTestApp({ TRUST_PROXY: value }, withIpRoute);
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  const ipOf = async (t: TestApp, remoteAddress: string, xff?: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/test-only/ip',
        remoteAddress,
        headers: xff ? { 'x-forwarded-for': xff } : {},
      })
    ).json().ip as string;

  it('reads the setting: 0, a hop count, true as one hop, or proxy addresses and ranges', () => {
    const trust = (TRUST_PROXY: string) =>
      loadConfig({ DATA_DIR: '/tmp/x', HOST: '127.0.0.1', TRUST_PROXY }).TRUST_PROXY;
    expect(trust('0')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('true')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.1, 172.16.0.0/12,loopback, ::1')).toEqual(['10.0.0.1', '172.16.0.0/12', 'loopback', '::1']);
    for (const bad of ['banana', '10.0.0.1/33', '10.0.0', '999', '1.2.3.4,']) {
      expect(() => trust(bad), bad).toThrow(/^Invalid configuration: TRUST_PROXY must be/);
    }
  });

  it('refuses a hop count unless HOST is loopback; a list of proxies may listen anywhere', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ DATA_DIR: '/tmp/x', ...env });
    for (const TRUST_PROXY of ['1', 'true', '3']) {
      for (const HOST of ['0.0.0.0', '::', '192.0.2.10', 'alerta.example']) {
        expect(load({ TRUST_PROXY, HOST }), `${TRUST_PROXY} on ${HOST}`).toThrow(ConfigError);
        expect(load({ TRUST_PROXY, HOST }), `${TRUST_PROXY} on ${HOST}`).toThrow(
          /^Invalid configuration: TRUST_PROXY=\S+ \(a hop count\) .*HOST=\S+ .*list the proxies' addresses in TRUST_PROXY$/,
        );
      }
      // The default HOST is every address.
      expect(load({ TRUST_PROXY }), TRUST_PROXY).toThrow(ConfigError);
      for (const HOST of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
        expect(load({ TRUST_PROXY, HOST })().TRUST_PROXY, `${TRUST_PROXY} on ${HOST}`).toBeGreaterThan(0);
      }
    }
    // The proxies' addresses listed: any HOST, since only they are believed.
    expect(load({ TRUST_PROXY: '10.0.0.1,172.16.0.0/12', HOST: '0.0.0.0' })().TRUST_PROXY).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
    ]);
    expect(load({ TRUST_PROXY: '0', HOST: '0.0.0.0' })().TRUST_PROXY).toBe(false);
  });

  it('with one hop, takes the address the proxy saw: a forged left-most entry changes nothing', async () => {
    const t = await appWith('1');
    expect(await ipOf(t, '127.0.0.1', '6.6.6.6, 203.0.113.50')).toBe('203.0.113.50');
    expect(await ipOf(t, '127.0.0.1', '203.0.113.50')).toBe('203.0.113.50');
    // Login's per-address limit holds however the client varies the entries it writes itself.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/users/auth/login/',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': `10.9.${i}.${i}, 203.0.113.51` },
        payload: { username: `nobody${i}`, password: 'Wrong-1234' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it('with two hops, skips exactly the two proxies', async () => {
    const t = await appWith('2');
    expect(await ipOf(t, '10.0.0.2', 'forged, 203.0.113.60, 10.0.0.1')).toBe('203.0.113.60');
  });

  it('with a list, believes only those proxies', async () => {
    const t = await appWith('10.0.0.1,10.1.0.0/16');
    expect(await ipOf(t, '10.0.0.1', '6.6.6.6, 203.0.113.70')).toBe('203.0.113.70');
    expect(await ipOf(t, '10.0.0.1', '6.6.6.6, 203.0.113.70, 10.1.2.3')).toBe('203.0.113.70');
    // A client talking to the server directly cannot claim another address.
    expect(await ipOf(t, '192.0.2.44', '203.0.113.70')).toBe('192.0.2.44');
  });

  it('without TRUST_PROXY, ignores X-Forwarded-For entirely', async () => {
    const t = await appWith('0');
    expect(await ipOf(t, '192.0.2.45', '203.0.113.80')).toBe('192.0.2.45');
  });
});
