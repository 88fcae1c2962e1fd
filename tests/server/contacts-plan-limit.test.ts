import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPortalAction } from '../../server/features/billing/simulated.js';
import { ownerWithContacts, postAlert, usageOf } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const FIVE: [string, string][] = [
  ['Ana Silva', '+351912000001'],
  ['Rui Costa', '+351912000002'],
  ['Eva Lopes', '+351912000003'],
  ['Luis Reis', '+351912000004'],
  ['Ines Melo', '+351912000005'],
];

describe(`contacts beyond a lower plan's limit (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('after premium → basic with 5 contacts: alerts, SMS and usage go to the first 3; nothing is deleted; the person chooses who stays', async () => {
    const owner = await ownerWithContacts(t.app, { plan: 'premium', contacts: FIVE });
    const list = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: owner.headers });
      expect(res.statusCode).toBe(200);
      return (res.json() as { name: string; alerted: boolean }[]).map((c) => [c.name, c.alerted]);
    };
    expect(await list()).toEqual(FIVE.map(([name]) => [name, true]));

    await applyPortalAction(t.app, owner.user.id, { type: 'plan', plan: 'basic' });
    expect(await list()).toEqual([
      ['Ana Silva', true],
      ['Rui Costa', true],
      ['Eva Lopes', true],
      ['Luis Reis', false],
      ['Ines Melo', false],
    ]);

    // A real alert reaches the first three only, and only three SMS are sent and counted.
    const sent = await postAlert(t.app, owner.token, { mode: 'real', location: null });
    expect(sent.statusCode).toBe(201);
    expect(
      sent
        .json()
        .deliveries.map((d: { contact_name: string }) => d.contact_name)
        .sort(),
    ).toEqual(['Ana Silva', 'Eva Lopes', 'Rui Costa']);
    await t.app.dispatcher.drain();
    const texted = t.app.outbox.sms.filter((sms) => FIVE.some(([, phone]) => phone === sms.to)).map((sms) => sms.to);
    expect(texted.sort()).toEqual(['+351912000001', '+351912000002', '+351912000003']);
    expect(await usageOf(t.app, owner.user.id)).toHaveLength(3);

    // The emergency page caches the same three for "Send from my phone".
    const page = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` });
    expect(page.json().contacts.map((c: { name: string }) => c.name)).toEqual(['Ana Silva', 'Rui Costa', 'Eva Lopes']);

    // Ines is chosen to stay alerted: she goes first, Eva makes room; all five are kept.
    const ines = (
      (await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: owner.headers })).json() as {
        id: string;
        name: string;
      }[]
    ).find((c) => c.name === 'Ines Melo')!;
    const chosen = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/contacts/${ines.id}/alert-first/`,
      headers: owner.headers,
    });
    expect(chosen.statusCode).toBe(200);
    const after = [
      ['Ines Melo', true],
      ['Ana Silva', true],
      ['Rui Costa', true],
      ['Eva Lopes', false],
      ['Luis Reis', false],
    ];
    expect((chosen.json() as { name: string; alerted: boolean }[]).map((c) => [c.name, c.alerted])).toEqual(after);
    expect(await list()).toEqual(after);
    const next = await postAlert(t.app, owner.token, { mode: 'real', location: null });
    expect(
      next
        .json()
        .deliveries.map((d: { contact_name: string }) => d.contact_name)
        .sort(),
    ).toEqual(['Ana Silva', 'Ines Melo', 'Rui Costa']);

    // Adding a sixth is refused at the basic limit; back on premium all five are alerted again.
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/emergency/contacts/',
      headers: owner.headers,
      payload: { name: 'Novo Contacto', phone_number: '+351912000006' },
    });
    expect(added.json()).toMatchObject({ detail: 'CONTACT_LIMIT_REACHED:3:basic' });
    await applyPortalAction(t.app, owner.user.id, { type: 'plan', plan: 'premium' });
    expect((await list()).every(([, alerted]) => alerted)).toBe(true);
  });

  it("choosing another user's contact, or an unknown one, is a 404", async () => {
    const owner = await ownerWithContacts(t.app, { plan: 'basic' });
    const stranger = await ownerWithContacts(t.app, { plan: 'basic', contacts: [['Zé Maria', '+351919999999']] });
    const [theirs] = (
      await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: stranger.headers })
    ).json() as { id: string }[];
    for (const id of [theirs!.id, 'unknown']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/emergency/contacts/${id}/alert-first/`,
        headers: owner.headers,
      });
      expect(res.statusCode).toBe(404);
    }
  });
});
