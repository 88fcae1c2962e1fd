import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_PATH_MAX_PER_MINUTE } from '../../server/plugins/security.js';
import { type Owner, subscriberWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

/** A client address of its own per check, so one limit never spills into the next. */
const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function expectThrottled(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, `${what}: ${res.statusCode} ${res.body.slice(0, 120)}`).toBe(429);
  expect(Number(res.headers['retry-after']), `${what}: Retry-After`).toBeGreaterThan(0);
  expect(res.json()).toMatchObject({ code: 'throttled', detail: expect.stringMatching(/^Request was throttled/) });
}

describe(`rate limits on every public endpoint (${dbLabel})`, () => {
  let t: TestApp;
  let owner: Owner;
  let token: string;
  beforeAll(async () => {
    t = await buildTestApp();
    owner = await subscriberWithContacts(t.app, 'premium', [
      ['TEST Ana', '+351911111111'],
      ['Rui Costa', '+351922222222'],
    ]);
    token = owner.token;
  });
  afterAll(async () => {
    await t.app.dispatcher.drain();
    await t.close();
  });

  /** Sends `max` requests that must pass the limiter, then one that must not. */
  async function hitLimit(
    what: string,
    max: number,
    request: (i: number, remoteAddress: string) => Promise<LightMyRequestResponse>,
  ): Promise<string> {
    const remoteAddress = newClient();
    for (let i = 0; i < max; i += 1) {
      const res = await request(i, remoteAddress);
      expect(res.statusCode, `${what} #${i + 1}: ${res.body.slice(0, 120)}`).not.toBe(429);
    }
    expectThrottled(await request(max, remoteAddress), `${what} #${max + 1}`);
    return remoteAddress;
  }

  const post = (url: string, payload: unknown, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress, headers });

  it.each([
    ['/api/users/registration/', 10, { username: 'x' }],
    ['/api/users/resend-verification/', 5, { email: 'not-an-address' }],
    // A new name each time: five failures on one account lock it sooner (a separate guard).
    ['/api/users/auth/login/', 10, (i: number) => ({ username: `nobody${i}`, password: 'wrong-password' })],
    ['/api/users/auth/refresh/', 60, { refresh: 'a.b.c' }],
    ['/api/users/reset-password/', 5, { email: 'not-an-address' }],
    ['/api/users/reset-password-confirm/', 10, { uid: 'x', token: 'y' }],
  ] as const)('%s: %i per client, then 429 with Retry-After', async (url, max, shape) => {
    const body = (i: number) => (typeof shape === 'function' ? shape(i) : shape);
    const limited = await hitLimit(url, max, (i, ip) => post(url, body(i), ip));
    // Another client is not affected.
    expect((await post(url, body(100), newClient())).statusCode).not.toBe(429);
    expectThrottled(await post(url, body(101), limited), `${url} stays limited`);
  });

  it('limits billing actions per client: checkout and portal', async () => {
    for (const url of ['/api/billing/checkout/', '/api/billing/portal/']) {
      await hitLimit(url, 20, (_i, ip) => post(url, { plan: 'nope' }, ip, owner.headers));
    }
  });

  it('limits reads of one alert link: the page data, the manifest, an alert status', async () => {
    const alert = await post(`/api/emergency/public/${token}/alerts/`, { mode: 'test' }, newClient(), {
      'idempotency-key': randomUUID(),
    });
    expect(alert.statusCode).toBe(201);
    const id = alert.json().id as string;
    for (const url of [
      `/api/emergency/public/${token}/`,
      `/api/emergency/public/${token}/alerts/${id}/`,
      `/public/${token}/manifest.webmanifest`,
    ]) {
      await hitLimit(url, 60, (_i, remoteAddress) => t.app.inject({ method: 'GET', url, remoteAddress }));
    }
  });

  it('limits test SMS per link to 5 per hour; real alerts are never refused; replays free', async () => {
    // The test alert above used one of the 5.
    const send = (mode: 'real' | 'test', key = randomUUID()) =>
      post(`/api/emergency/public/${token}/alerts/`, { mode }, newClient(), { 'idempotency-key': key });
    for (let i = 0; i < 4; i += 1) expect((await send('test')).statusCode).toBe(201);
    // From any address: the limit follows the link, not the client.
    expectThrottled(await send('test'), 'sixth test alert');
    const key = randomUUID();
    expect((await send('real', key)).statusCode).toBe(201);
    // Beyond the SMS budget a real alert is still stored (tests/server/abuse-sms-budget.test.ts).
    for (let i = 1; i < 12; i += 1) expect((await send('real')).statusCode).toBe(201);
    // The same idempotency key again is a replay: answered, not sent, not limited.
    expect((await send('real', key)).statusCode).toBe(200);
    await t.app.dispatcher.drain();
  });

  it('stops one client trying token after token, and verification key after key', async () => {
    const guess = () => randomBytes(24).toString('base64url');
    for (const url of [() => `/api/emergency/public/${guess()}/`, () => `/api/users/verify-email/${guess()}/`]) {
      await hitLimit(url(), SECRET_PATH_MAX_PER_MINUTE, (_i, remoteAddress) =>
        t.app.inject({ method: 'GET', url: url(), remoteAddress }),
      );
    }
  });
});
