import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { getLive, moved, postAck, postPosition, postResolve, sendRealAlert } from './live-fixtures.js';

describe(`live page, position updates, responders and the all-clear (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone).map((sms) => sms.body);

  it('puts the live link in the SMS and shows the owner, the position and its trail as it moves', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana Silva', '+351921000001']] });
    const alert = await sendRealAlert(t.app, owner.token);
    await t.app.dispatcher.drain();
    expect(smsTo('+351921000001')[0]).toContain(`http://alerta.test/a/${alert.public_id}`);

    const first = await getLive(t.app, alert.public_id);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      state: 'active',
      owner_name: owner.user.username,
      created_at: alert.created_at,
      position: { latitude: 38.7222524, longitude: -9.1393366, accuracy: 12 },
      responders: [],
    });

    const now = t.clock.now();
    for (const [i, metres] of [100, 250].entries()) {
      // Each fix reaches the server as it is taken, 30 s apart.
      t.clock.set(now + i * 30_000);
      const res = await postPosition(t.app, owner.token, alert.id, moved(metres, now + i * 30_000));
      expect(res.statusCode, res.body).toBe(201);
    }
    // The offline queue may replay an update that already arrived: stored once.
    expect((await postPosition(t.app, owner.token, alert.id, moved(250, now + 30_000))).statusCode).toBe(201);
    const live = (await getLive(t.app, alert.public_id)).json();
    expect(live.position.latitude).toBeCloseTo(moved(250, now).latitude, 6);
    expect(live.position.captured_at).toBe(new Date(now + 30_000).toISOString());
    expect(live.trail).toHaveLength(3);
    expect(live.trail[2].latitude).toBe(38.7222524);

    // A leaked link says nothing the SMS did not: no numbers, token, e-mail or contact names.
    const text = JSON.stringify(live);
    for (const secret of [owner.token, '+351921000001', 'Ana Silva', owner.user.email ?? '@', alert.id]) {
      expect(text).not.toContain(secret);
    }
  });

  it('refuses bad positions, foreign alerts, test alerts and the basic plan with clear 4xx', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Ana', '+351921000002']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const now = t.clock.now();
    const bad = await postPosition(t.app, owner.token, alert.id, { latitude: 91, longitude: 0, accuracy: -1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ latitude: [expect.any(String)], accuracy: [expect.any(String)] });
    expect(bad.json().captured_at).toEqual(['This field is required.']);
    const future = await postPosition(t.app, owner.token, alert.id, moved(10, now + 3_600_000));
    expect(future.json()).toMatchObject({ captured_at: [expect.stringMatching(/^The fix time is in the future/)] });
    const before = await postPosition(t.app, owner.token, alert.id, moved(10, now - 3_600_000));
    expect(before.json()).toMatchObject({ captured_at: ['The fix time must be during the alert.'] });
    expect((await postPosition(t.app, 'no-such-token', alert.id, moved(10, now))).statusCode).toBe(404);

    const other = await ownerWithContacts(t.app, { contacts: [['Rui', '+351921000003']] });
    expect((await postPosition(t.app, other.token, alert.id, moved(10, now))).statusCode).toBe(404);

    const test = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${owner.token}/alerts/`,
      headers: { 'idempotency-key': crypto.randomUUID() },
      payload: { mode: 'test', location: null, location_error: 'denied' },
    });
    const onTest = await postPosition(t.app, owner.token, test.json().id, moved(10, now));
    expect(onTest.json()).toMatchObject({ code: 'not_real' });
    expect((await getLive(t.app, test.json().public_id)).statusCode).toBe(404);

    const basic = await ownerWithContacts(t.app, { plan: 'basic', contacts: [['Ana', '+351921000004']] });
    const basicAlert = await sendRealAlert(t.app, basic.token);
    const refused = await postPosition(t.app, basic.token, basicAlert.id, moved(10, now));
    expect(refused.statusCode).toBe(402);
    expect(refused.json()).toEqual({
      detail: 'Live location needs the premium plan or a trial.',
      code: 'gps_not_in_plan',
    });
    const basicLive = (await getLive(t.app, basicAlert.public_id)).json();
    expect(basicLive).toMatchObject({ state: 'active', trail: [] });
    expect(basicLive.position).toBeUndefined();

    const trial = await ownerWithContacts(t.app, { trialDays: 3, contacts: [['Ana', '+351921000005']] });
    const trialAlert = await sendRealAlert(t.app, trial.token);
    expect((await postPosition(t.app, trial.token, trialAlert.id, moved(10, now))).statusCode).toBe(201);
  });

  it('stops taking positions 60 minutes after the alert', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351921000006']] });
    const alert = await sendRealAlert(t.app, owner.token);
    t.clock.advance(59 * 60_000);
    expect((await postPosition(t.app, owner.token, alert.id, moved(10, t.clock.now()))).statusCode).toBe(201);
    t.clock.advance(2 * 60_000);
    const late = await postPosition(t.app, owner.token, alert.id, moved(20, t.clock.now() - 90_000));
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'tracking_over' });
  });

  it('lists who is on the way for live pages and the sender, with an optional name of at most 40 characters', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351921000007']] });
    const alert = await sendRealAlert(t.app, owner.token);
    expect((await postAck(t.app, alert.public_id, { name: '  Rui\u0007 ' })).statusCode).toBe(201);
    t.clock.advance(1000);
    expect((await postAck(t.app, alert.public_id, {})).statusCode).toBe(201);
    const long = await postAck(t.app, alert.public_id, { name: 'x'.repeat(41) });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({
      name: ['Ensure this field has no more than 40 characters.'],
      codes: { name: 'max_length' },
    });
    expect((await postAck(t.app, 'unknown-public-id-000', {})).statusCode).toBe(404);
    // An unknown link is answered for before its body is looked at.
    expect((await postAck(t.app, 'unknown-public-id-000', { name: 'x'.repeat(41) })).statusCode).toBe(404);

    const live = (await getLive(t.app, alert.public_id)).json();
    expect(live.responders.map((r: { name: string }) => r.name)).toEqual(['Rui', '']);
    const sender = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/live/`,
    });
    expect(sender.json()).toMatchObject({
      public_id: alert.public_id,
      live_url: `http://alerta.test/a/${alert.public_id}`,
      state: 'active',
      tracking: true,
      responders: [
        { name: 'Rui', contact: false },
        { name: '', contact: false },
      ],
    });
  });

  it('"I\'m safe" resolves once, sends one all-clear to each contact when asked, and hides the position', async () => {
    const owner = await ownerWithContacts(t.app, {
      language: 'pt',
      contacts: [
        ['Ana', '+351921000008'],
        ['Rui', '+351921000009'],
      ],
    });
    const alert = await sendRealAlert(t.app, owner.token);
    await t.app.dispatcher.drain();
    const res = await postResolve(t.app, owner.token, alert.id, { notify: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'resolved', all_clear_queued: 2 });
    const again = await postResolve(t.app, owner.token, alert.id, { notify: true });
    expect(again.json()).toMatchObject({ resolved_at: res.json().resolved_at, all_clear_queued: 0 });
    await t.app.dispatcher.drain();
    for (const phone of ['+351921000008', '+351921000009']) {
      const bodies = smsTo(phone);
      expect(bodies).toHaveLength(2);
      expect(bodies.filter((b) => b.includes('está em segurança'))).toEqual([
        `Alerta: ${owner.user.username} está em segurança. O alerta terminou.`,
      ]);
    }
    // The alert's own deliveries stay the alert's: the all-clear is not listed among them.
    const status = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/`,
    });
    expect(status.json().deliveries).toHaveLength(2);

    const live = (await getLive(t.app, alert.public_id)).json();
    expect(live).toMatchObject({ state: 'resolved', resolved_at: res.json().resolved_at, trail: [] });
    expect(live.position).toBeUndefined();
    expect((await postPosition(t.app, owner.token, alert.id, moved(5, t.clock.now()))).json()).toMatchObject({
      code: 'alert_resolved',
    });
    expect((await postAck(t.app, alert.public_id, {})).statusCode).toBe(409);

    const quiet = await ownerWithContacts(t.app, { contacts: [['Ana', '+351921000010']] });
    const quietAlert = await sendRealAlert(t.app, quiet.token);
    const silent = await postResolve(t.app, quiet.token, quietAlert.id, {});
    expect(silent.json()).toMatchObject({ state: 'resolved', all_clear_queued: 0 });
    const notBoolean = await postResolve(t.app, quiet.token, quietAlert.id, { notify: 'yes' });
    expect(notBoolean.statusCode).toBe(400);
    expect(notBoolean.json()).toMatchObject({
      notify: [expect.any(String)],
      code: 'invalid',
      codes: { notify: 'invalid' },
    });
    expect((await postResolve(t.app, 'no-such-token', quietAlert.id, { notify: 'yes' })).statusCode).toBe(404);
    await t.app.dispatcher.drain();
    expect(smsTo('+351921000010')).toHaveLength(1);
  });
});
