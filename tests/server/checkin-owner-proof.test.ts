import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextIp } from './accounts-helpers.js';
import {
  type CheckinOwner,
  checkinCall,
  checkinOwner,
  type DeviceProof,
  deviceProof,
  settle,
  smsTo,
  startCheckin,
} from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;
const GRACE = 5 * MINUTE;
const PORTO = { latitude: 41.1579, longitude: -8.6291, accuracy: 10 };
const LISBON = { latitude: 38.7223, longitude: -9.1393, accuracy: 12 };
const at = (ms: number) => new Date(ms).toISOString();

// A link can raise the alarm; only the owner can lower it. Whoever holds only the owner's link
// (a screenshot, a browser history, the phone for a moment) can start a check-in and read the
// current one, and nothing more: ending it, postponing it and moving it need the owner's proof.
// Each refusal is followed by the owner, from the same address, doing the same thing.
describe(`check-ins lowered only with the owner's proof (${dbLabel})`, () => {
  const t = suiteApp();
  type Holder = CheckinOwner;
  const owner = () => checkinOwner(t.app);
  const started = async (o: Holder, body: object = { duration_seconds: 1800 }) => {
    const res = await startCheckin(t.app, o.token, { body, ip: nextIp() });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const current = (o: Holder, ip = nextIp()) =>
    t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/checkins/current/`, remoteAddress: ip });
  const row = (id: string) =>
    t.app.db.selectFrom('checkins').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const sms = (o: Holder) => smsTo(t.app, o);
  const settled = () => settle(t.app);
  const refused = (res: { statusCode: number; json(): { code?: string } }) => {
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('owner_proof_required');
  };

  it('"I\'m safe" from the link alone is refused (no PIN set): the check-in still fires; the owner ends it from the same address', async () => {
    const o = await owner();
    const stranger = await owner();
    const id = await started(o, { duration_seconds: 60 });
    const ip = nextIp();
    // The link alone reads the check-in's id, as before: raising and reading stay open.
    const seen = await current(o, ip);
    expect(seen.statusCode).toBe(200);
    expect(seen.json().id).toBe(id);
    const forged: object[] = [
      {},
      stranger.proof,
      { authorization: stranger.headers.authorization },
      { 'x-alerta-device-key': randomBytes(32).toString('base64url') },
      { authorization: `Bearer ${randomBytes(40).toString('base64url')}` },
    ];
    for (const proof of forged) refused(await checkinCall(t.app, o.token, id, 'done', { proof, ip }));
    expect((await row(id)).status).toBe('running');
    // Left alone, it fires: the stranger's "I'm safe" changed nothing.
    moveTime(t, MINUTE + GRACE);
    await settled();
    await settled();
    expect((await row(id)).status).toBe('fired');
    expect(sms(o)).toHaveLength(1);

    // The owner, from the same address, with the page's device key or the app's session.
    const mine = await started(o);
    refused(await checkinCall(t.app, o.token, mine, 'done', { ip }));
    const done = await checkinCall(t.app, o.token, mine, 'done', { proof: o.proof, ip });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ status: 'done' });
    const again = await started(o);
    expect((await checkinCall(t.app, o.token, again, 'done', { proof: o.headers, ip })).statusCode).toBe(200);
  });

  it('"extend" from the link alone is refused, during the grace of an overdue check-in too; the owner extends it right after', async () => {
    const o = await owner();
    const id = await started(o, { duration_seconds: 60 });
    const ip = nextIp();
    refused(await checkinCall(t.app, o.token, id, 'extend', { payload: { seconds: 86_000 }, ip }));
    moveTime(t, MINUTE);
    await settled();
    const overdue = await row(id);
    expect(overdue.status).toBe('overdue');
    // In the grace: the extension that would have rescued it is refused, nothing moves.
    refused(await checkinCall(t.app, o.token, id, 'extend', { payload: { seconds: 3600 }, ip }));
    expect(await row(id)).toMatchObject({ status: 'overdue', due_at: overdue.due_at });

    const extended = await checkinCall(t.app, o.token, id, 'extend', {
      payload: { seconds: 3600 },
      proof: o.proof,
      ip,
    });
    expect(extended.statusCode, extended.body).toBe(200);
    expect(extended.json()).toMatchObject({ status: 'running' });
    expect(Date.parse(extended.json().due_at)).toBe(t.clock.now() + 3600_000);
    moveTime(t, GRACE);
    await settled();
    expect((await row(id)).status).toBe('running');
    expect(sms(o)).toEqual([]);
  });

  it('a position from the link alone is refused; one dated ahead is refused or counted as now; the alert carries the owner’s latest', async () => {
    const o = await owner();
    const ip = nextIp();
    // Starting (raising) needs no proof, but not with a fix dated ahead.
    const ahead = await startCheckin(t.app, o.token, {
      body: { duration_seconds: 60, location: { ...PORTO, captured_at: at(t.clock.now() + 3 * MINUTE) } },
      ip,
    });
    expect(ahead.statusCode).toBe(400);
    expect(ahead.json().codes).toEqual({ location: 'invalid' });
    expect(ahead.json().location[0]).toMatch(/in the future/);
    const id = await started(o, { duration_seconds: 60, location: { ...LISBON, captured_at: at(t.clock.now()) } });

    // A fix from another city, dated 9 minutes ahead, from the link alone: refused before it is read.
    const move = (fix: object, proof?: DeviceProof) =>
      checkinCall(t.app, o.token, id, 'location', { payload: fix, ip, ...(proof ? { proof } : {}) });
    refused(await move({ ...PORTO, captured_at: at(t.clock.now() + 9 * MINUTE) }));
    refused(await move({ ...PORTO, captured_at: at(t.clock.now()) }));
    // The owner's own phone with its clock 3 minutes fast: a clear 400 on the field.
    const fast = await move({ ...PORTO, captured_at: at(t.clock.now() + 3 * MINUTE) }, o.proof);
    expect(fast.statusCode).toBe(400);
    expect(fast.json().codes).toEqual({ captured_at: 'invalid' });
    expect((await row(id)).latitude).toBe(LISBON.latitude);
    // A minute fast is accepted, as taken now: it cannot hide the next fix, sent 30 s later.
    const now = t.clock.now();
    expect((await move({ ...PORTO, captured_at: at(now + MINUTE) }, o.proof)).statusCode).toBe(204);
    expect(Number((await row(id)).captured_at)).toBe(now);
    moveTime(t, 30_000);
    const later = { latitude: 38.75, longitude: -9.2, accuracy: 8, captured_at: at(t.clock.now()) };
    expect((await move(later, o.proof)).statusCode).toBe(204);
    moveTime(t, 30_000 + GRACE);
    await settled();
    await settled();
    const fired = await row(id);
    expect(fired.status).toBe('fired');
    const alert = await t.app.db
      .selectFrom('alerts')
      .select(['latitude', 'longitude'])
      .where('id', '=', fired.alert_id as string)
      .executeTakeFirstOrThrow();
    expect([alert.latitude, alert.longitude].map(Number)).toEqual([later.latitude, later.longitude]);
    expect(sms(o)[0]?.body).toContain('38.75');
  });

  it("push reminders: 6 strangers' endpoints are refused and evict nothing; the owner's devices subscribe, a fifth is refused, not rotated", async () => {
    const o = await owner();
    const ip = nextIp();
    const browser = () => ({
      p256dh: randomBytes(65).toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    });
    const subscribe = (endpoint: string, proof: object = {}, from = ip) =>
      t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${o.token}/push-subscriptions/`,
        headers: { ...proof },
        payload: { endpoint: `https://fcm.googleapis.com/fcm/send/${endpoint}`, keys: browser() },
        remoteAddress: from,
      });
    const endpoints = async () =>
      (
        await t.app.db
          .selectFrom('push_subscriptions')
          .select('endpoint')
          .where('user_id', '=', o.user.id)
          .orderBy('created_at')
          .execute()
      ).map((row) => row.endpoint.split('/').pop());
    expect((await subscribe('owner-phone', o.proof)).statusCode).toBe(201);
    for (let i = 0; i < 6; i += 1) {
      refused(await subscribe(`stranger-${i}`, {}, nextIp()));
      const other = await owner();
      refused(await subscribe(`stranger-key-${i}`, other.proof, nextIp()));
    }
    expect(await endpoints()).toEqual(['owner-phone']);
    // A session proves the owner but names no device: a subscription belongs to a device key.
    const session = await subscribe('session-only', o.headers);
    expect(session.statusCode).toBe(403);
    expect(session.json().code).toBe('device_key_required');

    // From the same address: the owner's other devices, one each; the fifth is refused.
    for (const device of ['tablet', 'laptop', 'watch']) {
      t.clock.advance(1);
      expect((await subscribe(device, await deviceProof(t.app, o))).statusCode).toBe(201);
    }
    const fifth = await subscribe('fifth', await deviceProof(t.app, o));
    expect(fifth.statusCode).toBe(409);
    expect(fifth.json().code).toBe('push_subscriptions_full');
    expect(await endpoints()).toEqual(['owner-phone', 'tablet', 'laptop', 'watch']);
    // The phone's new subscription replaces its own, and takes no one's place.
    t.clock.advance(1);
    expect((await subscribe('owner-phone-renewed', o.proof)).statusCode).toBe(201);
    expect(await endpoints()).toEqual(['tablet', 'laptop', 'watch', 'owner-phone-renewed']);
  });
});
