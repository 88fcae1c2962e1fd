import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../server/features/accounts/passwords.js';
import { FIX_MAX_AHEAD_MS } from '../../server/lib/fix-time.js';
import { nextIp } from './accounts-helpers.js';
import { lisbonAt, type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { createUser, dbLabel, moveTime, suiteApp } from './helper.js';
import { getLive, moved, ownerProofOf, sendRealAlert } from './live-fixtures.js';

const MINUTE = 60_000;
/** A check-in's grace after its due time, before its alert goes. */
const GRACE = 5 * MINUTE;
/** Porto, 275 km north of Lisbon: where a stranger says the owner is. */
const PORTO = { latitude: 41.1496, longitude: -8.611, accuracy: 5 };

/**
 * "A link can raise the alarm, only the owner can lower it", on alerts: "I'm safe" (with or
 * without the all-clear, which also cancels the calls) needs the owner's proof on every alert,
 * and a position needs it on the owner's proven alerts, which every alert the server fires for
 * the owner is. Each refusal is followed by the owner, with proof, from the same address.
 */
describe(`only the owner lowers an alert (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const phones = (count: number) =>
    Array.from({ length: count }, () => {
      n += 1;
      return `+35196${String(7_000_000 + n)}`;
    });
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone).map((sms) => sms.body);
  const sender = (o: Owner, alertId: string) => `/api/emergency/public/${o.token}/alerts/${alertId}/`;
  const position = (o: Owner, alertId: string, fix: object, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${sender(o, alertId)}location/`,
      headers: { 'idempotency-key': randomUUID(), ...proof },
      payload: fix,
      remoteAddress: ip,
    });
  const resolve = (o: Owner, alertId: string, notify: boolean, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${sender(o, alertId)}resolve/`,
      headers: proof,
      payload: { notify },
      remoteAddress: ip,
    });
  /** The owner's device keys, issued before time moves past their session's. */
  const keys = new Map<string, Record<string, string>>();
  const keyOf = async (o: Owner) => {
    const key = keys.get(o.token) ?? (await ownerProofOf(t.app, o.token));
    keys.set(o.token, key);
    return key;
  };
  /** The alert's statuses as the owner reads them (an owner's alert answers only to their proof). */
  const status = async (o: Owner, alertId: string) =>
    t.app.inject({ method: 'GET', url: sender(o, alertId), headers: await keyOf(o) });
  const settle = async () => {
    await t.app.jobs.runDue();
    await t.app.dispatcher.drain();
    await t.app.background.idle();
  };
  const checkins = (o: Owner) => `/api/emergency/public/${o.token}/checkins/`;
  /** The owner's check-in (started with their proof), its id. */
  const startCheckin = async (o: Owner) => {
    const res = await t.app.inject({
      method: 'POST',
      url: checkins(o),
      headers: { 'idempotency-key': randomUUID(), ...(await keyOf(o)) },
      payload: { duration_seconds: 600 },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const firedAlert = async (o: Owner) => {
    const current = await t.app.inject({ method: 'GET', url: `${checkins(o)}current/`, headers: await keyOf(o) });
    expect(current.json().alert_id, current.body).toEqual(expect.any(String));
    return current.json() as { alert_id: string; alert_public_id: string };
  };
  /** What a refusal to lower says, whatever was asked. */
  const refusedForProof = (res: { statusCode: number; json: () => unknown; body: string }) => {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toEqual({ code: 'owner_proof_required', detail: expect.stringMatching(/sign in once/) });
  };

  it("refuses a link holder's false all-clear on a missed check-in's alert and its moved position; the owner, from the same address right after, ends it", async () => {
    const [mum, sister] = phones(2) as [string, string];
    const o = await ownerWithContacts(t.app, {
      contacts: [
        ['Mãe', mum],
        ['Irmã', sister],
      ],
    });
    const id = await startCheckin(o);
    // The owner's last position on the check-in (the owner's own page, with its proof).
    const located = await t.app.inject({
      method: 'POST',
      url: `${checkins(o)}${id}/location/`,
      headers: o.headers,
      payload: lisbonAt(t.app),
    });
    expect(located.statusCode, located.body).toBe(204);
    moveTime(t, 10 * MINUTE + GRACE);
    await settle();
    await settle();
    const { alert_id: alertId, alert_public_id: publicId } = await firedAlert(o);
    expect(smsTo(mum)).toHaveLength(1);
    // Fired by the server for the owner: the owner's by construction.
    expect((await status(o, alertId)).json()).toMatchObject({
      reason: 'missed_checkin',
      proven: true,
      escalation: { status: 'waiting' },
    });

    const stranger = nextIp();
    const other = await createUser(t.app);
    for (const proof of [{}, { authorization: other.headers.authorization }] as Record<string, string>[]) {
      refusedForProof(await resolve(o, alertId, true, stranger, proof));
      refusedForProof(await resolve(o, alertId, false, stranger, proof));
      refusedForProof(
        await position(o, alertId, { ...PORTO, captured_at: new Date(t.clock.now()).toISOString() }, stranger, proof),
      );
    }
    await settle();
    // No all-clear went, the calls still wait, and the live page still shows Lisbon.
    expect(smsTo(mum)).toHaveLength(1);
    expect(smsTo(sister)).toHaveLength(1);
    expect((await status(o, alertId)).json()).toMatchObject({ escalation: { status: 'waiting' } });
    expect((await getLive(t.app, publicId)).json()).toMatchObject({
      state: 'active',
      position: { latitude: 38.7222524, longitude: -9.1393366 },
    });

    // The owner's page, with its device key, from that same address.
    const proof = await ownerProofOf(t.app, o.token);
    const moving = await position(o, alertId, moved(300, t.clock.now()), stranger, proof);
    expect(moving.statusCode, moving.body).toBe(201);
    expect((await getLive(t.app, publicId)).json().position.latitude).toBeCloseTo(moved(300, 0).latitude, 6);
    const safe = await resolve(o, alertId, true, stranger, proof);
    expect(safe.statusCode, safe.body).toBe(200);
    expect(safe.json()).toMatchObject({ state: 'resolved', all_clear_queued: 2 });
    await settle();
    expect(smsTo(mum)).toHaveLength(2);
    expect(smsTo(mum).filter((body) => /is safe/.test(body))).toHaveLength(1);
    expect((await status(o, alertId)).json()).toMatchObject({ escalation: { status: 'cancelled' } });
  });

  it("keeps the duress PIN's alert the owner's as well: no link holder ends it", async () => {
    const [friend] = phones(1) as [string];
    const o = await ownerWithContacts(t.app, { contacts: [['Amiga', friend]] });
    await t.app.db
      .updateTable('users')
      .set({ checkin_pin_hash: await hashPassword('2468'), duress_pin_hash: await hashPassword('1357') })
      .where('id', '=', o.user.id)
      .execute();
    const id = await startCheckin(o);
    // Forced to end it: the duress PIN, on the owner's own page.
    const forced = await t.app.inject({
      method: 'POST',
      url: `${checkins(o)}${id}/done/`,
      headers: o.headers,
      payload: { pin: '1357' },
    });
    expect(forced.statusCode, forced.body).toBe(200);
    await settle();
    const alert = await t.app.db
      .selectFrom('alerts')
      .select(['id', 'reason', 'proven'])
      .where('user_id', '=', o.user.id)
      .executeTakeFirstOrThrow();
    expect(alert).toMatchObject({ reason: 'duress', proven: 1 });

    const ip = nextIp();
    refusedForProof(await resolve(o, alert.id, true, ip));
    await settle();
    expect(smsTo(friend)).toHaveLength(1);
    const safe = await resolve(o, alert.id, false, ip, { authorization: o.headers.authorization });
    expect(safe.statusCode, safe.body).toBe(200);
  });

  it("needs the owner's proof to end a link-only alert too, while a position on it stays the link's to add; unknown alerts stay 404", async () => {
    const [brother] = phones(1) as [string];
    const o = await ownerWithContacts(t.app, { contacts: [['Irmão', brother]] });
    const ip = nextIp();
    const sent = await sendRealAlert(t.app, o.token);
    const alertId = sent.id;
    expect((await status(o, alertId)).json()).toMatchObject({ proven: false });

    // Raising: the link's position on its own alert is taken.
    expect((await position(o, alertId, moved(50, t.clock.now()), ip)).statusCode).toBe(201);
    // Lowering: refused, with or without the all-clear, and by its public id as well.
    refusedForProof(await resolve(o, alertId, true, ip));
    refusedForProof(await resolve(o, sent.public_id, false, ip));
    await settle();
    expect(smsTo(brother)).toHaveLength(1);
    expect((await status(o, alertId)).json()).toMatchObject({ escalation: { status: 'waiting' } });

    const safe = await resolve(o, alertId, true, ip, { authorization: o.headers.authorization });
    expect(safe.statusCode, safe.body).toBe(200);
    expect(safe.json()).toMatchObject({ all_clear_queued: 1 });
    expect((await status(o, alertId)).json()).toMatchObject({ escalation: { status: 'cancelled' } });

    // An unknown alert, or another owner's, stays 404 with or without proof.
    const other = await ownerWithContacts(t.app, { contacts: [['Rui', ...phones(1)] as [string, string]] });
    const theirs = await sendRealAlert(t.app, other.token);
    for (const unknown of [randomUUID(), theirs.id]) {
      for (const headers of [{}, { authorization: o.headers.authorization }] as Record<string, string>[]) {
        expect((await resolve(o, unknown, true, ip, headers)).statusCode).toBe(404);
        expect((await position(o, unknown, moved(5, t.clock.now()), ip, headers)).statusCode).toBe(404);
      }
    }
  });
});

describe(`positions: none dated ahead, none hiding a later one (${dbLabel})`, () => {
  const t = suiteApp();
  const ahead = (ms: number) => new Date(t.clock.now() + ms).toISOString();

  it('refuses a fix dated more than 2 minutes ahead of the server, on the alert and on its positions, with a 400 of the API', async () => {
    const o = await ownerWithContacts(t.app, { contacts: [['Ana', '+351967100001']] });
    const alertAt = (captured_at: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${o.token}/alerts/`,
        headers: { 'idempotency-key': randomUUID() },
        payload: { mode: 'real', location: { ...PORTO, captured_at } },
      });
    expect(FIX_MAX_AHEAD_MS).toBe(2 * MINUTE);
    for (const captured_at of [ahead(2 * MINUTE + 1000), ahead(9 * MINUTE)]) {
      const refused = await alertAt(captured_at);
      expect(refused.statusCode, captured_at).toBe(400);
      expect(refused.json()).toEqual({
        location: [expect.stringMatching(/^The fix time is in the future/)],
        code: 'invalid',
        codes: { location: 'invalid' },
      });
    }
    const slightlyFast = await alertAt(ahead(MINUTE));
    expect(slightlyFast.statusCode, slightlyFast.body).toBe(201);

    const url = `/api/emergency/public/${o.token}/alerts/${slightlyFast.json().id}/location/`;
    const fix = (captured_at: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'idempotency-key': randomUUID() },
        payload: { ...PORTO, captured_at },
      });
    for (const captured_at of [ahead(2 * MINUTE + 1000), ahead(9 * MINUTE)]) {
      const refused = await fix(captured_at);
      expect(refused.statusCode, captured_at).toBe(400);
      expect(refused.json()).toMatchObject({
        captured_at: [expect.stringMatching(/^The fix time is in the future/)],
        code: 'invalid',
      });
    }
    expect((await fix(ahead(MINUTE))).statusCode).toBe(201);
  });

  it("lets no fix dated ahead pass for newer than the owner's fix received after it", async () => {
    const o = await ownerWithContacts(t.app, { contacts: [['Ana', '+351967100002']] });
    const ip = nextIp();
    const { id, public_id: publicId } = await sendRealAlert(t.app, o.token);
    // Both from the alert's own address, with the link alone: the alert is link-only.
    const fix = (payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${o.token}/alerts/${id}/location/`,
        headers: { 'idempotency-key': randomUUID() },
        payload,
        remoteAddress: ip,
      });
    // A stranger dates Porto as far ahead as is taken.
    const porto = await fix({ ...PORTO, captured_at: ahead(FIX_MAX_AHEAD_MS - 1000) });
    expect(porto.statusCode, porto.body).toBe(201);
    // The owner's real fix, taken and sent 20 s later.
    t.clock.advance(20_000);
    const mine = moved(120, t.clock.now());
    const real = await fix(mine);
    expect(real.statusCode, real.body).toBe(201);
    const live = (await getLive(t.app, publicId)).json();
    expect(live.position).toMatchObject({ latitude: mine.latitude, longitude: mine.longitude });
    expect(live.trail[1]).toMatchObject({ latitude: PORTO.latitude });
    // Shown as taken no later than it arrived: never in the future.
    expect(Date.parse(live.trail[1].captured_at)).toBeLessThan(Date.parse(live.position.captured_at));
  });
});
