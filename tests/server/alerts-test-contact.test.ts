import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

describe(`a test SMS to the contact chosen on the test page (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const contactsOf = async (token: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` })).json().contacts as {
      id: string;
      name: string;
      phone_number: string;
    }[];

  it('sends one test SMS, clearly marked, to the chosen contact with an ordinary name, in the owner’s language', async () => {
    const owner = await ownerWithContacts(t.app, {
      language: 'pt',
      contacts: [
        ['Maria Silva', '+351912000101'],
        ['João Costa', '+351912000102'],
      ],
    });
    const contacts = await contactsOf(owner.token);
    expect(contacts.map((c) => c.name)).toEqual(['Maria Silva', 'João Costa']);
    const joao = contacts[1]!;

    const sent = await postAlert(t.app, owner.token, { mode: 'test', location: null, contact_id: joao.id });
    expect(sent.statusCode).toBe(201);
    expect(sent.json()).toMatchObject({ mode: 'test', deliveries: [{ contact_name: 'João Costa' }] });
    await t.app.dispatcher.drain();
    const texts = t.app.outbox.sms.filter((sms) => sms.to.startsWith('+351912000'));
    expect(texts.map((sms) => sms.to)).toEqual(['+351912000102']);
    expect(texts[0]!.body).toMatch(/^TESTE Alerta: .+ esta a testar os alertas\. Nao é uma emergencia\./);
  });

  it('refuses a contact the link does not alert, and a chosen contact on a real alert', async () => {
    const owner = await ownerWithContacts(t.app);
    const stranger = await ownerWithContacts(t.app, { contacts: [['Zé Maria', '+351919999998']] });
    const [theirs] = await contactsOf(stranger.token);
    const unknown = await postAlert(t.app, owner.token, { mode: 'test', location: null, contact_id: theirs!.id });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      detail: 'The chosen contact is not one of the contacts this link alerts.',
      code: 'unknown_test_contact',
    });
    const [mine] = await contactsOf(owner.token);
    const real = await postAlert(t.app, owner.token, { mode: 'real', location: null, contact_id: mine!.id });
    expect(real.statusCode).toBe(400);
  });

  it('without a chosen contact and none named TEST, says how to choose one', async () => {
    const owner = await ownerWithContacts(t.app);
    const refused = await postAlert(t.app, owner.token, { mode: 'test', location: null });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      detail:
        'Choose the contact who gets the test SMS on the test page (or name one contact starting with TEST, for example "TEST Maria").',
      code: 'no_test_contacts',
    });
  });

  it('keeps the test budget: 5 test SMS an hour per link, chosen contact or not', async () => {
    const owner = await ownerWithContacts(t.app);
    const [first] = await contactsOf(owner.token);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await postAlert(t.app, owner.token, { mode: 'test', location: null, contact_id: first!.id })).statusCode,
      );
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });
});
