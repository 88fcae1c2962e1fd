import { randomInt, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { buildTestApp, createUser, dbLabel, TEST_PASSWORD, type TestApp, type TestUser } from './helper.js';
import {
  hostileBody,
  hostileHeaders,
  hostileString,
  NASTY_STRINGS,
  pathSegment,
  type RawRequest,
  REAL,
  shapedBody,
} from './hostile/arbitraries.js';
import { expectDatabaseInvariants, rowCounts } from './hostile/invariants.js';

/** Modest on a shared 2-core machine; each run is one request plus two count queries. */
const RUNS = Number(process.env.HOSTILE_RUNS ?? 25);

interface World {
  owner: TestUser;
  token: string;
  contactId: string;
  alertId: string;
  publicId: string;
}

interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: (segment: () => string, world: World) => string;
  /** The body fields it reads, with plausible values mixed into the hostile ones. */
  fields?: Record<string, readonly unknown[]>;
  auth?: boolean;
}

const location = { latitude: 38.72, longitude: -9.14, accuracy: 12, captured_at: '2026-01-01T12:00:00Z' };
const PASSWORDS = [TEST_PASSWORD, 'password', '12345678', 'Another-Pass-77'];

/** Every API endpoint of DESIGN.md §3, with the body fields each one reads. */
const ENDPOINTS: Record<string, Endpoint> = {
  registration: {
    method: 'POST',
    url: () => '/api/users/registration/',
    fields: {
      username: ['maria', 'MARIA', 'maria.silva'],
      email: ['maria@example.com', 'not-an-email'],
      password1: PASSWORDS,
      password2: PASSWORDS,
      accept_terms: [true, false, 'true'],
    },
  },
  verifyEmail: { method: 'GET', url: (s) => `/api/users/verify-email/${s()}/` },
  resend: { method: 'POST', url: () => '/api/users/resend-verification/', fields: { email: ['maria@example.com'] } },
  login: { method: 'POST', url: () => '/api/users/auth/login/', fields: { username: ['maria'], password: PASSWORDS } },
  refresh: { method: 'POST', url: () => '/api/users/auth/refresh/', fields: { refresh: ['a.b.c'] } },
  me: { method: 'GET', url: () => '/api/users/me/', auth: true },
  patchMe: {
    method: 'PATCH',
    url: () => '/api/users/me/',
    auth: true,
    fields: { language: ['pt', 'en', 'fr'], alert_countdown_seconds: [0, 3, 5, 10, 7, -1] },
  },
  reset: { method: 'POST', url: () => '/api/users/reset-password/', fields: { email: ['maria@example.com'] } },
  resetConfirm: {
    method: 'POST',
    url: () => '/api/users/reset-password-confirm/',
    fields: { uid: ['abc'], token: ['abc'], new_password1: PASSWORDS, new_password2: PASSWORDS },
  },
  rotate: { method: 'POST', url: () => '/api/users/token/rotate/', auth: true },
  listContacts: { method: 'GET', url: () => '/api/emergency/contacts/', auth: true },
  addContact: {
    method: 'POST',
    url: () => '/api/emergency/contacts/',
    auth: true,
    fields: {
      name: ['Maria Silva', 'TEST Maria', "O'Neil", 'Zoë-Ann'],
      phone_number: ['+351912345678', '351912345679', '+1 202 555 0143'],
      relationship: ['mother', ''],
    },
  },
  deleteContact: { method: 'DELETE', url: (s) => `/api/emergency/contacts/${s()}/`, auth: true },
  checkout: { method: 'POST', url: () => '/api/billing/checkout/', auth: true, fields: { plan: ['basic', 'premium'] } },
  portal: { method: 'POST', url: () => '/api/billing/portal/', auth: true },
  webhook: { method: 'POST', url: () => '/api/billing/webhook/', fields: { type: ['checkout.session.completed'] } },
  alertPage: { method: 'GET', url: (s) => `/api/emergency/public/${s()}/` },
  sendAlert: {
    method: 'POST',
    url: (s) => `/api/emergency/public/${s()}/alerts/`,
    fields: {
      mode: ['real', 'test'],
      location: [location, null, { ...location, latitude: 91 }, { ...location, captured_at: 'yesterday' }],
      location_error: ['denied', 'unavailable', 'timeout', 'unsupported', 'bogus'],
    },
  },
  alertStatus: { method: 'GET', url: (s, w) => `/api/emergency/public/${w.token}/alerts/${s()}/` },
  alertHistory: { method: 'GET', url: () => '/api/emergency/alerts/', auth: true },
  livePosition: {
    method: 'POST',
    url: (s, w) => `/api/emergency/public/${w.token}/alerts/${s()}/location/`,
    fields: { latitude: [38.72, 91], longitude: [-9.14, 200], accuracy: [10, -1], captured_at: [Date.now(), 'now'] },
  },
  liveSender: { method: 'GET', url: (s, w) => `/api/emergency/public/${w.token}/alerts/${s()}/live/` },
  liveView: { method: 'GET', url: (s) => `/api/live/${s()}/` },
  liveAck: { method: 'POST', url: (s) => `/api/live/${s()}/ack/`, fields: { name: ['Rui', ''] } },
  liveResolve: {
    method: 'POST',
    url: (s, w) => `/api/emergency/public/${w.token}/alerts/${s()}/resolve/`,
    fields: { notify: [false, true, 'yes'] },
  },
  deleteAccount: { method: 'DELETE', url: () => '/api/users/delete-account/', auth: true },
};

/** The genuine path parameter of an endpoint in the test world. */
function realSegment(name: string, world: World): string {
  if (name === 'deleteContact') return world.contactId;
  if (name === 'liveView' || name === 'liveAck') return world.publicId;
  if (['alertStatus', 'livePosition', 'liveSender', 'liveResolve'].includes(name)) return world.alertId;
  return world.token;
}

/** A 4xx body in the DRF shape: a stable code plus a detail, an error text or field-keyed messages. */
function expectClientError(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, `${what} → ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode < 400) return;
  const body = res.json() as Record<string, unknown>;
  expect(typeof body.code, `${what}: code in ${res.body.slice(0, 200)}`).toBe('string');
  const messages = Object.entries(body).filter(
    ([key, value]) =>
      (['detail', 'error'].includes(key) && typeof value === 'string' && value !== '') ||
      (Array.isArray(value) && value.length > 0 && value.every((m) => typeof m === 'string')),
  );
  expect(messages.length, `${what}: a message in ${res.body.slice(0, 200)}`).toBeGreaterThan(0);
}

async function send(
  app: FastifyInstance,
  endpoint: Endpoint,
  url: string,
  raw: RawRequest,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const all: Record<string, string> = { ...headers };
  if (raw.contentType !== undefined) all['content-type'] = raw.contentType;
  return app.inject({
    method: endpoint.method,
    url,
    headers: all,
    ...(raw.payload !== undefined && endpoint.method !== 'GET' ? { payload: raw.payload } : {}),
  });
}

describe(`hostile input on every endpoint (${dbLabel})`, () => {
  let t: TestApp;
  const world = {} as World;
  beforeAll(async () => {
    // Limits lifted so a 429 never hides what the handler itself does with the input.
    t = await buildTestApp({ BENCH_NO_RATE_LIMIT: '1' }, (app) => {
      // Stands for any future route whose validation misses a NUL character.
      app.get('/api/test-only/nul', async () =>
        app.db.selectFrom('users').select('id').where('username', '=', 'ma\u0000ria').execute(),
      );
    });
    world.owner = await createUser(t.app, { username: 'maria' });
    await activateSubscription(t.app.db, { userId: world.owner.user.id, plan: 'premium', now: t.clock.now() });
    for (const name of ['TEST Ana', 'Rui Costa']) {
      const phone = name.startsWith('TEST') ? '+351911111111' : '+351922222222';
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/emergency/contacts/',
        headers: world.owner.headers,
        payload: { name, phone_number: phone },
      });
      expect(res.statusCode).toBe(201);
      world.contactId = res.json().id;
    }
    const row = await t.app.db
      .selectFrom('users')
      .select('token')
      .where('id', '=', world.owner.user.id)
      .executeTakeFirstOrThrow();
    world.token = row.token!;
    const alert = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${world.token}/alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode: 'real', location: null, location_error: 'denied' },
    });
    expect(alert.statusCode).toBe(201);
    world.alertId = alert.json().id;
    world.publicId = alert.json().public_id;
    await t.app.dispatcher.drain();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(Object.keys(ENDPOINTS))(
    '%s: random and malicious bodies, headers and paths never cause a 5xx',
    async (name) => {
      const endpoint = ENDPOINTS[name]!;
      const real = () => realSegment(name, world);
      const auth = fc.oneof(
        { weight: 4, arbitrary: fc.constant('owner') },
        { weight: 1, arbitrary: hostileString.map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, 'x')}`) },
        { weight: 1, arbitrary: fc.constant('none') },
      );
      const body = hostileBody(shapedBody(endpoint.fields ?? {}));
      await fc.assert(
        fc.asyncProperty(pathSegment, body, hostileHeaders, auth, async (seg, raw, headers, who) => {
          // A fresh account per run for the one endpoint that deletes it.
          const user = name === 'deleteAccount' ? await createUser(t.app) : world.owner;
          const authorization = who === 'owner' ? user.headers : who === 'none' ? {} : { authorization: who };
          const url = endpoint.url(() => (seg === REAL ? real() : seg), world);
          // Sends of earlier accepted alerts, and e-mails left for after an answer, finish first,
          // so they do not move the counts below.
          await t.app.dispatcher.drain();
          await t.app.background.idle();
          const before = await rowCounts(t.app.db);
          const res = await send(t.app, endpoint, url, raw, { ...headers, ...authorization });
          expectClientError(res, `${endpoint.method} ${url}`);
          if (res.statusCode >= 400)
            expect(await rowCounts(t.app.db), `${endpoint.method} ${url} changed rows`).toEqual(before);
          // A rotation that went through replaces the link the other endpoints are fed.
          if (name === 'rotate' && res.statusCode === 200) world.token = res.json().token;
        }),
        { numRuns: RUNS },
      );
    },
  );

  it.each(Object.keys(ENDPOINTS).filter((n) => ENDPOINTS[n]!.method !== 'GET'))(
    '%s: a body over the limit gets a clear 413 (or 401 before it is read), never a 5xx',
    async (name) => {
      const endpoint = ENDPOINTS[name]!;
      const payload = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
      const res = await send(
        t.app,
        endpoint,
        endpoint.url(() => world.token, world),
        { contentType: 'application/json', payload },
        world.owner.headers,
      );
      expectClientError(res, name);
      expect([413, 401, 404]).toContain(res.statusCode);
    },
  );

  it.each(Object.keys(ENDPOINTS).filter((n) => ENDPOINTS[n]!.fields))(
    '%s: every nasty string in every field, and deeply nested JSON, is refused or stored safely',
    async (name) => {
      const endpoint = ENDPOINTS[name]!;
      const url = endpoint.url(() => realSegment(name, world), world);
      const headers = { ...world.owner.headers, 'idempotency-key': randomUUID() };
      for (const field of Object.keys(endpoint.fields!)) {
        for (const nasty of NASTY_STRINGS) {
          const valid = Object.fromEntries(Object.entries(endpoint.fields!).map(([k, v]) => [k, v[0]]));
          // A new number each time, so the other fields are judged rather than the duplicate rule.
          if (name === 'addContact') valid.phone_number = `+35191${String(randomInt(1e7)).padStart(7, '0')}`;
          const payload = JSON.stringify({ ...valid, [field]: nasty });
          const res = await send(t.app, endpoint, url, { contentType: 'application/json', payload }, headers);
          expectClientError(res, `${name}.${field}=${JSON.stringify(nasty).slice(0, 40)}`);
          // Accepted contacts are removed again so the plan's limit never stops the next one.
          if (name === 'addContact' && res.statusCode === 201) {
            const removed = await t.app.inject({
              method: 'DELETE',
              url: `/api/emergency/contacts/${res.json().id}/`,
              headers: world.owner.headers,
            });
            expect(removed.statusCode).toBe(204);
          }
        }
      }
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      const nested = await send(t.app, endpoint, url, { contentType: 'application/json', payload: deep }, headers);
      expectClientError(nested, `${name} deep nesting`);
    },
  );

  it('refuses a NUL byte in any path or query with a clear 400, before it reaches the database', async () => {
    for (const name of [
      'verifyEmail',
      'deleteContact',
      'alertPage',
      'sendAlert',
      'alertStatus',
      'liveView',
      'liveAck',
    ]) {
      const endpoint = ENDPOINTS[name]!;
      const url = endpoint.url(() => `abc%00${world.token}`, world);
      const res = await send(
        t.app,
        endpoint,
        url,
        { contentType: 'application/json', payload: '{}' },
        world.owner.headers,
      );
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ detail: 'Malformed URL.', code: 'bad_url' });
    }
    const query = await t.app.inject({ method: 'GET', url: '/api/users/me/?lang=%00', headers: world.owner.headers });
    expect(query.statusCode).toBe(400);
  });

  it('answers text the database cannot store with a 400, whichever route lets it through', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/test-only/nul' });
    expectClientError(res, 'NUL reaching the database');
    if (t.database.dialect === 'postgres') {
      expect(res.json()).toEqual({
        detail: 'The request contains characters that cannot be stored.',
        code: 'invalid_characters',
      });
    }
  });

  it('leaves the database consistent after all of it', async () => {
    await t.app.dispatcher.drain();
    await expectDatabaseInvariants(t.app.db);
  });
});

describe(`hostile input on the SMS status callback (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // The callback exists only with Twilio configured; no alert is sent here, so no SMS leaves.
    t = await buildTestApp({
      BENCH_NO_RATE_LIMIT: '1',
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'x'.repeat(32),
      TWILIO_FROM: '+15005550006',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses unsigned and forged callbacks with a clear 4xx, whatever the form says', async () => {
    const form = fc.dictionary(
      fc.constantFrom('MessageSid', 'MessageStatus', 'ErrorCode', 'To', 'From', 'AccountSid'),
      hostileString,
      { maxKeys: 5 },
    );
    const signature = fc.oneof(
      fc.constant(undefined),
      hostileString.map((s) => s.replace(/[^\x21-\x7e]/g, 'x')),
    );
    const contentType = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain');
    await fc.assert(
      fc.asyncProperty(form, signature, contentType, async (fields, sig, type) => {
        const payload = type === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
        const before = await rowCounts(t.app.db);
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/sms/status/',
          headers: { 'content-type': type, ...(sig === undefined ? {} : { 'x-twilio-signature': sig }) },
          payload,
        });
        expectClientError(res, 'POST /api/sms/status/');
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        expect(await rowCounts(t.app.db)).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });
});
