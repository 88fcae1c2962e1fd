import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { LINK_ONLY_CALL_WINDOW_MS } from '../../server/features/escalation/service.js';
import { lisbonAt, type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

/** The owner's own escalation delay in these tests: the shortest allowed. */
const DELAY_MS = 60_000;

// Whoever holds the link can raise the alarm, not ring the contacts' phones on end: alerts sent
// with the link alone phone each number at most once an hour for their account, however many
// are sent; the owner's proven alerts escalate as before.
describe(`escalation calls of link-only alerts (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  type Holder = Owner & { phones: string[] };
  const owner = async (): Promise<Holder> => {
    const phones = Array.from({ length: 2 }, () => `+35194${String(++n).padStart(7, '0')}`);
    const o = await ownerWithContacts(t.app, { contacts: phones.map((p, i) => [`Contact ${i}`, p]) });
    await t.app.db
      .updateTable('users')
      .set({ escalation_after_seconds: DELAY_MS / 1000 })
      .where('id', '=', o.user.id)
      .execute();
    return Object.assign(o, { phones });
  };
  const settle = async (app: FastifyInstance = t.app) => {
    await app.jobs.runDue();
    await app.dispatcher.drain();
    await app.background.idle();
  };
  /** How many times each of the owner's numbers was phoned, in the order of `phones`. */
  const rings = (o: Holder, apps: FastifyInstance[] = [t.app]) =>
    o.phones.map((phone) => apps.flatMap((app) => app.outbox.calls).filter((call) => call.to === phone).length);
  const send = (o: Holder, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${o.token}/alerts/`,
      headers: { 'idempotency-key': randomUUID(), ...proof },
      payload: { mode: 'real', location: lisbonAt(t.app) },
      remoteAddress: ip,
    });
  const escalationOf = async (o: Holder, id: string) =>
    (
      await t.app.inject({ method: 'GET', url: `/api/emergency/public/${o.token}/alerts/${id}/`, headers: o.headers })
    ).json().escalation;

  it('rings each contact once for 15 link-only alerts sent within a minute, and the owner’s proven alert still rings them', async () => {
    const o = await owner();
    const ip = '198.51.100.41';
    const sent: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      const res = await send(o, ip);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ proven: false, escalation: { status: 'waiting' } });
      sent.push(res.json().id);
      moveTime(t, 3000);
    }
    moveTime(t, DELAY_MS);
    await settle();
    expect(rings(o)).toEqual([1, 1]);
    // One alert phoned them; the others that escalated show their calls over, with none placed.
    const views = await Promise.all(sent.map((id) => escalationOf(o, id)));
    expect(views.filter((view) => view.calls.length === 2)).toHaveLength(1);
    expect(views.filter((view) => view.calls.length === 0).map((view) => view.status)).toEqual(Array(14).fill('done'));

    // The owner, from the same address right after, with proof: escalates as always.
    const mine = await send(o, ip, o.headers);
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json()).toMatchObject({ proven: true, recently_alerted: false, number_busy: false });
    moveTime(t, DELAY_MS);
    await settle();
    expect(rings(o)).toEqual([2, 2]);
    expect((await escalationOf(o, mine.json().id)).calls).toHaveLength(2);
  });

  it('rings them again for a link-only alert only once the hour since the last such call has passed', async () => {
    const o = await owner();
    const ip = '198.51.100.42';
    expect((await send(o, ip)).statusCode).toBe(201);
    moveTime(t, DELAY_MS);
    await settle();
    expect(rings(o)).toEqual([1, 1]);

    moveTime(t, LINK_ONLY_CALL_WINDOW_MS - DELAY_MS - 1000);
    const late = await send(o, ip);
    expect(late.statusCode).toBe(201);
    // It escalates a second short of an hour after the calls: still within the hour.
    moveTime(t, DELAY_MS);
    await settle();
    expect(rings(o)).toEqual([1, 1]);
    expect(await escalationOf(o, late.json().id)).toMatchObject({ status: 'done', calls: [] });

    moveTime(t, 2000);
    const later = await send(o, ip);
    moveTime(t, DELAY_MS);
    await settle();
    expect(rings(o)).toEqual([2, 2]);
    expect((await escalationOf(o, later.json().id)).calls).toHaveLength(2);
  });

  it('keeps one account’s link-only calls apart from another’s with the same contacts', async () => {
    const first = await owner();
    const other = await ownerWithContacts(t.app, { contacts: first.phones.map((p, i) => [`Shared ${i}`, p]) });
    await t.app.db.updateTable('users').set({ escalation_after_seconds: 60 }).where('id', '=', other.user.id).execute();
    expect((await send(first, '198.51.100.43')).statusCode).toBe(201);
    expect((await send({ ...other, phones: first.phones }, '198.51.100.44')).statusCode).toBe(201);
    moveTime(t, DELAY_MS);
    await settle();
    // Each account's first link-only alert: what another account's alerts did never holds it back.
    expect(rings(first)).toEqual([2, 2]);
  });

  it('rings each contact once when two server processes escalate link-only alerts at the same moment', async () => {
    const o = await owner();
    for (let i = 0; i < 4; i += 1) expect((await send(o, '198.51.100.45')).statusCode).toBe(201);
    const second = await secondServer(t);
    try {
      await second.app.ready();
      moveTime(t, DELAY_MS);
      await Promise.all([settle(), settle(second.app)]);
      expect(rings(o, [t.app, second.app])).toEqual([1, 1]);
    } finally {
      await second.close();
    }
  });
});
