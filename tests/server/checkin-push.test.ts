import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error http_ece (web-push's own encryption library) ships no types.
import ece from 'http_ece';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { isPrivateAddress, outboundUrlProblem, publicLookup } from '../../server/lib/outbound.js';
import { vapidKeys } from '../../server/providers/push/web-push.js';
import { browserPushKeys, type PushService, startPushService } from '../fixtures/push-service.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { type DeviceProof, deviceProof } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

// Check-in reminders reach the owner's browsers by Web Push, through the web-push library to a
// push service (here on loopback, with its own certificate); the endpoints come from whoever
// holds the link, so they are checked like any URL the server calls.

describe(`check-in reminders by Web Push (${dbLabel})`, () => {
  const t = suiteApp({ PUSH_ALLOW_PRIVATE: '1' });
  let service: PushService;
  let base = '';

  beforeAll(async () => {
    service = await startPushService((at) => (at.startsWith('/gone') ? 410 : 201));
    base = service.base;
  });
  afterAll(() => service.close());

  const browser = browserPushKeys;
  /** Subscribes from the device whose key is `proof` (the owner's page sends it). */
  const subscribe = (token: string, proof: DeviceProof, endpoint: string, keys = browser()) =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/push-subscriptions/`,
      headers: proof,
      payload: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } },
    });
  const subscriptionsOf = (userId: string) =>
    t.app.db
      .selectFrom('push_subscriptions')
      .select('endpoint')
      .where('user_id', '=', userId)
      .orderBy('endpoint')
      .execute();

  it('pushes the overdue reminder, encrypted and VAPID-signed, to each browser; a gone one is deleted', async () => {
    const o = await ownerWithContacts(t.app);
    const phone = browser();
    const [onPhone, onLaptop] = [await deviceProof(t.app, o), await deviceProof(t.app, o)];
    expect((await subscribe(o.token, onPhone, `${base}/ok/${o.user.id}`, phone)).statusCode).toBe(201);
    expect((await subscribe(o.token, onLaptop, `${base}/gone/${o.user.id}`)).statusCode).toBe(201);
    const page = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/` });
    expect(page.json(), page.body).toHaveProperty('push_public_key');
    expect(page.json().push_public_key).toMatch(/^[\w-]{80,}$/);
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/checkins/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { duration_seconds: 600 },
    });
    moveTime(t, 600_000);
    await t.app.jobs.runDue();
    const push = service.received.find((r) => r.path === `/ok/${o.user.id}`);
    expect(push?.headers.authorization).toMatch(new RegExp(`^vapid t=.+, k=${page.json().push_public_key}$`));
    expect(push?.headers['content-encoding']).toBe('aes128gcm');
    expect(push?.headers.urgency).toBe('high');
    const message = JSON.parse(
      ece.decrypt(push?.body, { version: 'aes128gcm', privateKey: phone.ecdh, authSecret: phone.auth }).toString(),
    );
    expect(message).toMatchObject({
      title: 'are you OK?',
      body: expect.stringMatching(/^Are you OK\? Tap to say you are safe, or your contacts are alerted at \d\d:\d\d/),
      data: {
        kind: 'checkin-reminder',
        checkin_id: started.json().id,
        url: expect.stringContaining(`/public/${o.token}/#checkin`),
      },
    });
    expect(await subscriptionsOf(o.user.id)).toEqual([{ endpoint: `${base}/ok/${o.user.id}` }]);
    expect(t.app.outbox.push.filter((p) => p.endpoint.endsWith(o.user.id))).toHaveLength(2);
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/dev/outbox.json?key=${encodeURIComponent(t.config.DEV_OUTBOX_KEY)}`,
      remoteAddress: '127.0.0.1',
    });
    expect(outbox.json().push[0]).toMatchObject({ title: 'are you OK?', endpoint: expect.stringContaining(base) });
  });

  it('keeps one subscription per device (its next replaces it), updates the keys of one seen again, and removes it with its device key', async () => {
    const o = await ownerWithContacts(t.app);
    const phone = await deviceProof(t.app, o);
    expect((await subscribe(o.token, phone, `${base}/ok/first`)).statusCode).toBe(201);
    expect((await subscribe(o.token, phone, `${base}/ok/second`)).statusCode).toBe(201);
    expect(await subscriptionsOf(o.user.id)).toEqual([{ endpoint: `${base}/ok/second` }]);
    const again = browser();
    expect((await subscribe(o.token, phone, `${base}/ok/second`, again)).statusCode).toBe(201);
    const row = await t.app.db
      .selectFrom('push_subscriptions')
      .select('p256dh')
      .where('user_id', '=', o.user.id)
      .executeTakeFirstOrThrow();
    expect(row.p256dh).toBe(again.p256dh);
    // The device key removed (the owner's list, a logout): its subscription goes with it.
    const key = await t.app.db
      .selectFrom('push_subscriptions')
      .select('device_key_id')
      .where('user_id', '=', o.user.id)
      .executeTakeFirstOrThrow();
    await t.app.db
      .deleteFrom('device_keys')
      .where('id', '=', key.device_key_id as string)
      .execute();
    expect(await subscriptionsOf(o.user.id)).toEqual([]);
  });

  it('refuses endpoints that are not https, carry credentials or are no URL, with a 400 naming the field', async () => {
    const o = await ownerWithContacts(t.app);
    const proof = await deviceProof(t.app, o);
    for (const endpoint of [
      'http://push.example.com/x',
      'https://user:pw@push.example.com/x',
      'not a url',
      'file:///etc/passwd',
    ]) {
      const res = await subscribe(o.token, proof, endpoint);
      expect(res.statusCode, endpoint).toBe(400);
      expect(Object.keys(res.json())).toContain('endpoint');
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/push-subscriptions/`,
      headers: proof,
      payload: { endpoint: `${base}/ok/x`, keys: { p256dh: 'short', auth: '!' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(await subscriptionsOf(o.user.id)).toEqual([]);
  });
});

describe('outbound URLs from clients', () => {
  it('refuses private, loopback and link-local hosts unless allowed, and https only', () => {
    for (const url of [
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://[::1]/x',
      'https://10.1.2.3/x',
      'https://192.168.1.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0.0.0.0/x',
    ]) {
      expect(outboundUrlProblem(url, false), url).toBe('The URL must point to a public address.');
      expect(outboundUrlProblem(url, true), url).toBeNull();
    }
    expect(outboundUrlProblem('https://fcm.googleapis.com/fcm/send/abc', false)).toBeNull();
    expect(outboundUrlProblem('http://fcm.googleapis.com/x', true)).toBe('The URL must use https.');
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2a00:1450:4003::200e')).toBe(false);
    expect(isPrivateAddress('fd00::1')).toBe(true);
  });

  it('fails a connection whose name resolves to a private address, when it connects', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicLookup('localhost', {}, (err) => resolve(err)),
    );
    expect(error?.code).toBe('EPRIVATE');
  });
});

describe('the VAPID keys', () => {
  it('are generated once into DATA_DIR, readable by the owner only, and the same after a restart; set ones win', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-vapid-'));
    try {
      const config = loadConfig({ DATA_DIR: dataDir });
      const first = vapidKeys(config);
      expect(first.publicKey).toMatch(/^[\w-]{80,}$/);
      expect(statSync(path.join(dataDir, 'vapid.json')).mode & 0o777).toBe(0o600);
      expect(vapidKeys(loadConfig({ DATA_DIR: dataDir }))).toEqual(first);
      const set = { VAPID_PUBLIC_KEY: 'pub', VAPID_PRIVATE_KEY: 'priv' };
      expect(vapidKeys(loadConfig({ DATA_DIR: dataDir, ...set }))).toEqual({ publicKey: 'pub', privateKey: 'priv' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
