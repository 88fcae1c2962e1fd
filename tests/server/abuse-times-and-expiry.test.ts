import { describe, expect, it } from 'vitest';
import { FIX_MAX_AGE_MS, FIX_MAX_AHEAD_MS } from '../../server/lib/fix-time.js';
import { alertsOf, LISBON, lisbonAt, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { getLive, moved, postAck, postPosition, sendRealAlert } from './live-fixtures.js';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

describe(`fix times within a window around the server's time, reads that never fail (${dbLabel})`, () => {
  const t = suiteApp();

  it('refuses a fix time too far ahead or behind, on the alert and on the live updates alike', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963000001']] });
    const now = t.clock.now();
    const withFix = (captured_at: unknown) => ({ mode: 'real', location: { ...LISBON, captured_at } });
    for (const captured_at of [8640000000000001, 1e20, now + FIX_MAX_AHEAD_MS + 1000, now - FIX_MAX_AGE_MS - 1000]) {
      const res = await postAlert(t.app, owner.token, withFix(captured_at));
      expect(res.statusCode, `${captured_at}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid', location: [expect.stringMatching(/^The fix time/)] });
    }
    expect(await alertsOf(t.app, owner.user.id)).toHaveLength(0);
    // Inside the window, at either end: accepted (a press queued offline for up to a day).
    expect((await postAlert(t.app, owner.token, withFix(now + FIX_MAX_AHEAD_MS - 1000))).statusCode).toBe(201);
    const alert = await postAlert(t.app, owner.token, withFix(new Date(now - FIX_MAX_AGE_MS + 1000).toISOString()));
    expect(alert.statusCode).toBe(201);

    const id = alert.json().id as string;
    for (const at of [8640000000000001, 1e20, now + FIX_MAX_AHEAD_MS + 1000]) {
      const far = await postPosition(t.app, owner.token, id, { ...moved(10, now), captured_at: at });
      expect(far.statusCode, far.body).toBe(400);
      expect(far.json()).toMatchObject({ captured_at: [expect.stringMatching(/^The fix time/)] });
    }
    expect((await postPosition(t.app, owner.token, id, moved(10, now))).statusCode).toBe(201);
  });

  it('answers the history and the live page even for times no date can hold', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963000002']] });
    const alert = await sendRealAlert(t.app, owner.token);
    // As a row written before fix times were bounded would hold them.
    await t.app.db.updateTable('alerts').set({ captured_at: 8640000000000001 }).where('id', '=', alert.id).execute();
    await t.app.db
      .insertInto('alert_locations')
      .values({
        id: 'bad-fix',
        alert_id: alert.id,
        latitude: 38.7,
        longitude: -9.1,
        accuracy: 5,
        captured_at: 9_000_000_000_000_000,
        created_at: t.clock.now(),
      })
      .execute();
    const history = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: owner.headers });
    expect(history.statusCode, history.body).toBe(200);
    expect(history.json()[0].location).toMatchObject({ latitude: LISBON.latitude, captured_at: null });
    const live = await getLive(t.app, alert.public_id);
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toMatchObject({ state: 'active' });
    const sender = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/live/`,
    });
    expect(sender.statusCode).toBe(200);
  });
});

describe(`live pages end 24 hours after the owner's last activity (${dbLabel})`, () => {
  const t = suiteApp();

  it('is never kept up by "on my way" answers', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963000011']] });
    const alert = await sendRealAlert(t.app, owner.token);
    for (let hour = 23; hour < 24 * 3; hour += 23) {
      t.clock.advance(23 * HOUR);
      const ack = await postAck(t.app, alert.public_id, { name: 'Stranger' }, `198.51.100.${hour}`);
      if (hour < 24) expect(ack.statusCode).toBe(201);
    }
    // 69 hours after the alert, acknowledged every 23 hours: ended a day after the alert.
    expect((await getLive(t.app, alert.public_id)).json()).toEqual({ state: 'ended' });
  });

  it("ends 24 hours after the owner's last position", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963000012']] });
    const alert = await sendRealAlert(t.app, owner.token);
    t.clock.advance(20 * 60_000);
    expect((await postPosition(t.app, owner.token, alert.id, moved(30, t.clock.now()))).statusCode).toBe(201);
    await postAck(t.app, alert.public_id, { name: 'Rui' }, '198.51.100.200');
    t.clock.advance(DAY - 1000);
    expect((await getLive(t.app, alert.public_id)).json()).toMatchObject({ state: 'active' });
    t.clock.advance(2000);
    expect((await getLive(t.app, alert.public_id)).json()).toEqual({ state: 'ended' });
  });

  it('deletes the position an alert went out with, and its maps link, after 30 days', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963000013']] });
    const old = await sendRealAlert(t.app, owner.token);
    t.clock.advance(31 * DAY);
    const recent = await postAlert(t.app, owner.token, { mode: 'real', location: lisbonAt(t.app) });
    await t.app.dispatcher.drain();
    await t.app.purgeLiveHistory();
    const access = await t.app.tokens.signAccess(owner.user.id, owner.sessionId);
    const history = (
      await t.app.inject({
        method: 'GET',
        url: '/api/emergency/alerts/',
        headers: { authorization: `Bearer ${access}` },
      })
    ).json() as { id: string; location: unknown; message: string }[];
    const oldView = history.find((a) => a.id === old.id);
    expect(oldView?.location).toBeNull();
    expect(oldView?.message).not.toMatch(/38\.7\d+,-9\.1\d+/);
    expect(oldView?.message).toContain('maps.google.com');
    expect(history.find((a) => a.id === recent.json().id)?.location).toMatchObject({ latitude: LISBON.latitude });
    const rows = await t.app.db.selectFrom('deliveries').select('body').where('alert_id', '=', old.id).execute();
    for (const row of rows) expect(row.body).not.toMatch(/38\.7\d+,-9\.1\d+/);
  });
});
