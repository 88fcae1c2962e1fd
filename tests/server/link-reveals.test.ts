import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextIp } from './accounts-helpers.js';
import { checkinCall, checkinOwner, checkinsPath, clockTime, settle, smsTo, startCheckin } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;
/** A check-in's grace after its due time, before its alert goes. */
const GRACE = 5 * MINUTE;
/** Where the owner really is: Sintra. Its digits appear in no id, token or date. */
const SINTRA = { latitude: 38.80097, longitude: -9.38823, accuracy: 9 };
/** Where the owner's own press was: Cascais. */
const CASCAIS = { latitude: 38.69788, longitude: -9.42147, accuracy: 14 };
/** Where a link holder says the owner is: Porto. */
const PORTO = { latitude: 41.14961, longitude: -8.61099, accuracy: 5 };

/** Every string in an answer: the ids a link holder would try next. */
function stringsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, into);
  return into;
}

/**
 * A link can only raise the alarm, never follow the owner: no answer reached with the link alone
 * carries a position of the owner's (sent with their proof, or of an alert they proved or the
 * server fired for them), nor an id that opens one. A check-in started with the link alone is the
 * link's: it fires as a link-only alert, its position is never the owner's last known one, and
 * the owner's own start replaces it.
 */
describe(`what a link reveals, and whose a check-in is (${dbLabel})`, () => {
  const t = suiteApp();
  const at = (place: object) => ({ ...place, captured_at: new Date(t.clock.now() - 1000).toISOString() });
  const api = (token: string) => `/api/emergency/public/${token}/`;

  it('from the link alone, every answer and every id found in it: no coordinate of the owner’s, for a fired check-in and for the owner’s own alert; the owner, from the same address, reads both', async () => {
    const o = await checkinOwner(t.app, { contacts: 2 });
    // The owner's proven alert, pressed at Cascais from their page with its device key.
    const pressed = await t.app.inject({
      method: 'POST',
      url: `${api(o.token)}alerts/`,
      headers: { 'idempotency-key': randomUUID(), ...o.proof },
      payload: { mode: 'real', location: at(CASCAIS) },
    });
    expect(pressed.statusCode, pressed.body).toBe(201);
    const own = pressed.json() as { id: string; public_id: string };
    // The owner's check-in, at Sintra, with a note; it fires.
    const started = await startCheckin(t.app, o.token, {
      body: { duration_seconds: 600, note: 'Trail run at Sintra', location: at(SINTRA) },
      proof: o.proof,
    });
    expect(started.statusCode, started.body).toBe(201);
    const checkinId = started.json().id as string;
    const moved = await checkinCall(t.app, o.token, checkinId, 'location', { payload: at(SINTRA), proof: o.proof });
    expect(moved.statusCode, moved.body).toBe(204);
    moveTime(t, 10 * MINUTE + GRACE);
    await settle(t.app);
    await settle(t.app);
    expect(smsTo(t.app, o).filter((sms) => sms.body.includes('38.80097'))).toHaveLength(2);

    const ip = nextIp();
    const reached: { url: string; status: number; body: string }[] = [];
    const get = async (url: string, headers: Record<string, string> = {}) => {
      const res = await t.app.inject({ method: 'GET', url, headers, remoteAddress: ip });
      reached.push({ url, status: res.statusCode, body: res.body });
      return res;
    };
    // Every GET the link alone reaches.
    const current = await get(`${checkinsPath(o.token)}current/`);
    expect(current.statusCode, current.body).toBe(200);
    // The fired check-in shows as fired, without its alert's ids or its note.
    expect(current.json()).toMatchObject({ id: checkinId, status: 'fired', alert_id: null, alert_public_id: null });
    expect(current.json().note).toBeNull();
    const listed = [await get(api(o.token)), current, await get(`${api(o.token)}daily/`)];
    // Then every id those answers hand out, and the two alerts' own ids as if guessed.
    const fired = await t.app.db
      .selectFrom('alerts')
      .select(['id', 'public_id'])
      .where('user_id', '=', o.user.id)
      .where('reason', '=', 'missed_checkin')
      .executeTakeFirstOrThrow();
    const ids = new Set([...listed.flatMap((res) => [...stringsIn(res.json())]), own.id, fired.id]);
    for (const id of ids) {
      const x = encodeURIComponent(id);
      await get(`${api(o.token)}alerts/${x}/`);
      await get(`${api(o.token)}alerts/${x}/live/`);
      await get(`/api/live/${x}/`);
      for (const action of ['location', 'resolve']) {
        const res = await t.app.inject({
          method: 'POST',
          url: `${api(o.token)}alerts/${x}/${action}/`,
          headers: { 'idempotency-key': randomUUID() },
          payload: action === 'location' ? at(PORTO) : { notify: false },
          remoteAddress: ip,
        });
        reached.push({ url: res.raw.req.url ?? '', status: res.statusCode, body: res.body });
      }
    }
    expect(reached.length).toBeGreaterThan(20);
    for (const { url, body } of reached) {
      for (const digits of ['38.80', '9.388', '38.69', '9.421']) expect(body, url).not.toContain(digits);
      expect(body, url).not.toContain(fired.public_id);
      expect(body, url).not.toContain(own.public_id);
    }
    // The owner's two alerts answer the link alone 403, asking for the owner's proof.
    for (const id of [own.id, fired.id]) {
      for (const path of ['', 'live/']) {
        const refused = reached.find((r) => r.url === `${api(o.token)}alerts/${id}/${path}`);
        expect(refused?.status, refused?.body).toBe(403);
        expect(JSON.parse(refused?.body ?? '{}').code).toBe('owner_proof_required');
      }
    }

    // The owner, from that same address right after: the check-in with its alert, both alerts, their live pages.
    const mine = await get(`${checkinsPath(o.token)}current/`, o.proof);
    expect(mine.json()).toMatchObject({
      status: 'fired',
      note: 'Trail run at Sintra',
      alert_id: fired.id,
      alert_public_id: fired.public_id,
    });
    for (const alert of [own, fired]) {
      const status = await get(`${api(o.token)}alerts/${alert.id}/`, o.proof);
      expect(status.statusCode, status.body).toBe(200);
      const live = await get(`${api(o.token)}alerts/${alert.id}/live/`, o.proof);
      expect(live.json().public_id).toBe(alert.public_id);
    }
    // The live page stays what it is for the contacts, whose SMS carry its id.
    const followed = await get(`/api/live/${fired.public_id}/`);
    expect(followed.json().position).toMatchObject({ latitude: SINTRA.latitude });
  });

  it('a check-in started with the link alone fires as a link-only alert: its note given as the link holder’s, calls once an hour per contact', async () => {
    const o = await checkinOwner(t.app, { contacts: 2, language: 'en' });
    await t.app.db.updateTable('users').set({ escalation_after_seconds: 60 }).where('id', '=', o.user.id).execute();
    const fire = async (note: string) => {
      const started = await startCheckin(t.app, o.token, {
        body: { duration_seconds: 60, note, location: at(PORTO) },
        ip: nextIp(),
      });
      expect(started.statusCode, started.body).toBe(201);
      // The link holder reads it back: its own note (it is not the owner's), never an alert's ids.
      expect(started.json()).toMatchObject({ note, alert_id: null });
      moveTime(t, MINUTE + GRACE);
      await settle(t.app);
      await settle(t.app);
      moveTime(t, 2 * MINUTE);
      await settle(t.app);
      await settle(t.app);
    };
    await fire('Gone fishing, all fine');
    await fire('Back tomorrow');
    const alerts = await t.app.db
      .selectFrom('alerts')
      .select(['reason', 'proven'])
      .where('user_id', '=', o.user.id)
      .orderBy('created_at')
      .execute();
    expect(alerts).toEqual([
      { reason: 'missed_checkin', proven: 0 },
      { reason: 'missed_checkin', proven: 0 },
    ]);
    const alertSms = smsTo(t.app, o).filter((sms) => /check-in started with the link of/.test(sms.body));
    expect(alertSms).toHaveLength(4);
    for (const sms of alertSms) {
      expect(sms.body).not.toContain('did not check in as planned');
      expect(sms.body).toMatch(/Note from whoever started it: "(Gone fishing, all fine|Back tomorrow)"/);
    }
    // Two such check-ins within the hour: each contact is phoned once, not at each fire.
    for (const phone of o.phones) expect(t.app.outbox.calls.filter((call) => call.to === phone)).toHaveLength(1);
  });

  it('the owner’s proven start replaces a link holder’s day-long check-in, which then fires nothing; a link-only start beside the owner’s is 409', async () => {
    const o = await checkinOwner(t.app, { contacts: 1 });
    const ip = nextIp();
    const planted = await startCheckin(t.app, o.token, { body: { duration_seconds: 86_400 }, ip });
    expect(planted.statusCode, planted.body).toBe(201);
    const theirs = await startCheckin(t.app, o.token, { body: { duration_seconds: 600 }, ip });
    expect(theirs.json().code).toBe('checkin_running');

    const mine = await startCheckin(t.app, o.token, { body: { duration_seconds: 600 }, ip, proof: o.proof });
    expect(mine.statusCode, mine.body).toBe(201);
    const rows = await t.app.db
      .selectFrom('checkins')
      .select(['id', 'status', 'proven'])
      .where('user_id', '=', o.user.id)
      .execute();
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: planted.json().id, status: 'done', proven: 0 },
        { id: mine.json().id, status: 'running', proven: 1 },
      ]),
    );
    const again = await startCheckin(t.app, o.token, { body: { duration_seconds: 600 }, ip });
    expect(again.statusCode).toBe(409);
    // "I'm safe" on the owner's: then the day passes, and nothing is sent for either.
    const done = await checkinCall(t.app, o.token, mine.json().id, 'done', { proof: o.proof, ip });
    expect(done.statusCode, done.body).toBe(200);
    moveTime(t, 86_400_000 + GRACE);
    await settle(t.app);
    await settle(t.app);
    expect(smsTo(t.app, o)).toHaveLength(0);
  });

  it('the check-in’s id under the server’s own alert keys (missed_checkin:, duress:) is refused 400 and neither reads nor pre-empts its alert', async () => {
    const o = await checkinOwner(t.app, { contacts: 1 });
    const started = await startCheckin(t.app, o.token, { body: { duration_seconds: 600 }, proof: o.proof });
    const id = started.json().id as string;
    moveTime(t, 10 * MINUTE + GRACE);
    for (const key of [`missed_checkin:${id}`, `duress:${id}`, `MISSED_CHECKIN:${id}`]) {
      for (const mode of ['test', 'real']) {
        const res = await t.app.inject({
          method: 'POST',
          url: `${api(o.token)}alerts/`,
          headers: { 'idempotency-key': key },
          payload: { mode, location: null, location_error: 'unavailable' },
          remoteAddress: nextIp(),
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().code).toBe('idempotency_key_invalid');
      }
    }
    expect(await t.app.db.selectFrom('alerts').select('id').where('user_id', '=', o.user.id).execute()).toEqual([]);
    await settle(t.app);
    await settle(t.app);
    const fired = await t.app.db.selectFrom('alerts').selectAll().where('user_id', '=', o.user.id).execute();
    expect(fired.map((alert) => [alert.reason, alert.proven])).toEqual([['missed_checkin', 1]]);
    expect(smsTo(t.app, o)).toHaveLength(1);
  });

  it('the missed daily check-in gives as last known position only a fix the owner sent with proof, never a planted one', async () => {
    const o = await checkinOwner(t.app, { contacts: 1, language: 'en' });
    // The owner's own position, on a check-in they started and ended.
    const mine = await startCheckin(t.app, o.token, {
      body: { duration_seconds: 600, location: at(SINTRA) },
      proof: o.proof,
    });
    expect(mine.statusCode, mine.body).toBe(201);
    expect((await checkinCall(t.app, o.token, mine.json().id, 'done', { proof: o.proof })).statusCode).toBe(200);
    moveTime(t, MINUTE);
    // Newer positions from the link alone: a check-in and an alert, both planted at Porto.
    const planted = await startCheckin(t.app, o.token, { body: { duration_seconds: 86_400, location: at(PORTO) } });
    expect(planted.statusCode, planted.body).toBe(201);
    const pressed = await t.app.inject({
      method: 'POST',
      url: `${api(o.token)}alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode: 'real', location: at(PORTO) },
    });
    expect(pressed.statusCode, pressed.body).toBe(201);
    await settle(t.app);
    const session = { authorization: `Bearer ${await t.app.tokens.signAccess(o.user.id, o.sessionId)}` };
    const time = clockTime(t.clock.now() + 2 * 3600_000, o.user.time_zone ?? 'UTC');
    const daily = await t.app.inject({
      method: 'PUT',
      url: '/api/users/me/daily-checkin/',
      headers: session,
      payload: { enabled: true, time, every_days: 1, grace_minutes: 30 },
    });
    expect(daily.statusCode, daily.body).toBe(200);
    moveTime(t, Date.parse(daily.json().next_due_at) - t.clock.now() + 31 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    const missed = smsTo(t.app, o).filter((sms) => /daily/i.test(sms.body));
    expect(missed, JSON.stringify(smsTo(t.app, o))).toHaveLength(1);
    expect(missed[0]?.body).toContain('38.80097');
    expect(missed[0]?.body).not.toContain('41.14961');
  });
});
