import { describe, expect, it } from 'vitest';
import type { NewAlert } from '../../server/db/schema.js';
import { contactDeliveries } from '../../server/features/alerts/compose.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { nextIp } from './accounts-helpers.js';
import { alertRow, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { ownerProofOf, postResolve, sendRealAlert } from './live-fixtures.js';

const HOUR = 3_600_000;

/**
 * The owner's open alerts (`GET /api/emergency/public/{token}/open-alerts/`): what the emergency
 * page and the app list beside "I'm safe". A link alone learns nothing of them; the owner, with a
 * device key or the session, gets every active real alert but a duress one.
 */
describe(`the owner's open alerts (${dbLabel})`, () => {
  const t = suiteApp();
  const list = (token: string, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${token}/open-alerts/`,
      headers: proof,
      remoteAddress: ip,
    });
  /** An alert the server raised for the owner, stored as it stores one, with its SMS to each contact. */
  const serverAlert = async (userId: string, fields: Partial<NewAlert>) => {
    const now = t.app.clock.now();
    const row = alertRow(userId, { created_at: now, proven: 1, ...fields });
    const contacts = [{ name: 'Ana Silva', phone_number: '+351912345678' }];
    await insertAlert(
      t.app.db,
      row,
      contactDeliveries('https://alerta.test', row, contacts, (url) => url, now),
      {},
    );
    return row;
  };

  it('answers a link alone 403 owner_proof_required with no alert id in it; the owner, from the same address right after, gets every open alert but the duress one', async () => {
    const o = await ownerWithContacts(t.app);
    const other = await ownerWithContacts(t.app);
    const pressed = await sendRealAlert(t.app, o.token);
    const daily = await serverAlert(o.user.id, { reason: 'missed_daily', created_at: t.app.clock.now() - HOUR });
    await t.app.db
      .insertInto('daily_checkins')
      .values({
        user_id: o.user.id,
        enabled: 1,
        time: '09:00',
        every_days: 1,
        grace_minutes: 60,
        paused_until: null,
        anchor_at: t.app.clock.now() - 30 * HOUR,
        last_ok_at: t.app.clock.now() - 30 * HOUR,
        next_due_at: null,
        reminded_due_at: null,
        missed_due_at: null,
        alert_id: daily.id,
        link_hash: null,
        link_expires_at: null,
        created_at: t.app.clock.now() - 40 * HOUR,
        updated_at: t.app.clock.now(),
      })
      .execute();
    const duress = await serverAlert(o.user.id, { reason: 'duress' });
    const test = await serverAlert(o.user.id, { mode: 'test' });
    const ended = await serverAlert(o.user.id, { reason: 'missed_checkin', resolved_at: t.app.clock.now() });
    const secrets = [pressed.id, pressed.public_id, daily.id, daily.public_id, duress.id, duress.public_id];

    const ip = nextIp();
    for (const proof of [
      {},
      { authorization: other.headers.authorization },
      await ownerProofOf(t.app, other.token),
      { 'x-alerta-device-key': 'x'.repeat(43) },
    ] as Record<string, string>[]) {
      const refused = await list(o.token, ip, proof);
      expect(refused.statusCode, JSON.stringify(proof)).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'owner_proof_required' });
      for (const secret of secrets) expect(refused.body).not.toContain(secret);
    }

    for (const proof of [await ownerProofOf(t.app, o.token), { authorization: o.headers.authorization }]) {
      const mine = await list(o.token, ip, proof);
      expect(mine.statusCode, mine.body).toBe(200);
      const alerts = mine.json() as { id: string; reason: string; since: string | null; live_url: string }[];
      // The server's alert first (the owner's and the server's before the link's), then the newest.
      expect(alerts.map((a) => [a.id, a.reason])).toEqual([
        [daily.id, 'missed_daily'],
        [pressed.id, 'button'],
      ]);
      expect(alerts[0]).toMatchObject({
        since: new Date(t.app.clock.now() - 30 * HOUR).toISOString(),
        live_url: `${t.app.config.APP_URL}/a/${daily.public_id}`,
        deliveries: [{ contact_name: 'Ana Silva', status: 'queued' }],
        responders: [],
      });
      for (const hidden of [duress.id, test.id, ended.id]) expect(mine.body).not.toContain(hidden);
    }
    // Once ended with "I'm safe" it is no longer open.
    expect((await postResolve(t.app, o.token, daily.id, { notify: false })).statusCode).toBe(200);
    const after = await list(o.token, ip, { authorization: o.headers.authorization });
    expect((after.json() as { id: string }[]).map((a) => a.id)).toEqual([pressed.id]);
  });

  it('answers an unknown link 404, whatever proof comes with it', async () => {
    const o = await ownerWithContacts(t.app);
    const res = await list(`${o.token}x`, nextIp(), { authorization: o.headers.authorization });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: expect.any(String) });
  });

  it('keeps the owner’s and the server’s alerts on the list however many newer alerts the link sent', async () => {
    const o = await ownerWithContacts(t.app);
    const daily = await serverAlert(o.user.id, { reason: 'missed_daily', created_at: t.app.clock.now() - HOUR });
    for (let i = 0; i < 25; i += 1) await sendRealAlert(t.app, o.token);
    const ip = nextIp();
    const mine = await list(o.token, ip, await ownerProofOf(t.app, o.token));
    expect(mine.statusCode, mine.body).toBe(200);
    const ids = (mine.json() as { id: string }[]).map((alert) => alert.id);
    expect(ids[0]).toBe(daily.id);
    expect(ids.length).toBeLessThanOrEqual(20);
  });
});
