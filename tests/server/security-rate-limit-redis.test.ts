import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) {
  console.warn('shared rate limits: not run because TEST_REDIS_URL is not set (.ci/run sets it to the loopback Redis)');
}

/** The manifest of an emergency link: public, limited to 60 a minute per client address. */
const URL = '/public/abcdefghijklmnopqrstuvwx/manifest.webmanifest';
const MAX = 60;

/** A client address of its own per run, so runs (and other suites) never share a counter. */
const clientAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

describe.skipIf(!REDIS_URL)(`rate limits shared across processes through Redis (${dbLabel})`, () => {
  let first: TestApp;
  let second: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    first = await buildTestApp({ REDIS_URL: REDIS_URL! });
    second = await buildTestApp({ REDIS_URL: REDIS_URL! });
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    redis?.disconnect();
  });

  it('counts one client across two server processes: the limit is not doubled', async () => {
    const remoteAddress = clientAddress();
    const statuses: number[] = [];
    for (let i = 0; i < MAX; i += 1) {
      const app = i % 2 === 0 ? first.app : second.app;
      statuses.push((await app.inject({ method: 'GET', url: URL, remoteAddress })).statusCode);
    }
    // Unknown token: 404, but each request still counts towards the limit.
    expect(statuses.every((s) => s === 404)).toBe(true);
    for (const app of [first.app, second.app]) {
      const over = await app.inject({ method: 'GET', url: URL, remoteAddress });
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.json()).toMatchObject({ code: 'throttled', detail: expect.stringContaining('throttled') });
    }
    // The counter lives in Redis under the app's namespace.
    const keys = await redis.keys(`alerta-rl:*${remoteAddress}`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
  });

  it('counts failed logins across processes: five through either lock that address out of both', async () => {
    const remoteAddress = clientAddress();
    const username = `nobody${randomInt(1e9)}`;
    const attempt = (app: TestApp['app'], address = remoteAddress) =>
      app.inject({
        method: 'POST',
        url: '/api/users/auth/login/',
        payload: { username, password: 'Wrong-Pass-99' },
        remoteAddress: address,
      });
    for (let i = 0; i < 5; i += 1) expect((await attempt(i % 2 === 0 ? first.app : second.app)).statusCode).toBe(401);
    for (const app of [first.app, second.app]) {
      const locked = await attempt(app);
      expect(locked.statusCode).toBe(429);
      expect(locked.json()).toMatchObject({ code: 'throttled' });
    }
    // Another address is not locked out.
    expect((await attempt(second.app, clientAddress())).statusCode).toBe(401);
    const keys = await redis.keys(`alerta-rl:*${username}*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
  });

  it('keeps other clients free while one is limited', async () => {
    const noisy = clientAddress();
    for (let i = 0; i <= MAX; i += 1) await first.app.inject({ method: 'GET', url: URL, remoteAddress: noisy });
    expect((await second.app.inject({ method: 'GET', url: URL, remoteAddress: noisy })).statusCode).toBe(429);
    expect((await second.app.inject({ method: 'GET', url: URL, remoteAddress: clientAddress() })).statusCode).toBe(404);
  });
});

describe(`rate limits without Redis (${dbLabel})`, () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await buildTestApp();
    second = await buildTestApp();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('limits each process on its own: the reason REDIS_URL is needed behind a load balancer', async () => {
    const remoteAddress = clientAddress();
    for (let i = 0; i < MAX; i += 1) {
      expect((await first.app.inject({ method: 'GET', url: URL, remoteAddress })).statusCode).toBe(404);
    }
    expect((await first.app.inject({ method: 'GET', url: URL, remoteAddress })).statusCode).toBe(429);
    expect((await second.app.inject({ method: 'GET', url: URL, remoteAddress })).statusCode).toBe(404);
  });
});
