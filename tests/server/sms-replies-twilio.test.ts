import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { forgetOldInbound, REPLAY_WINDOW_MS } from '../../server/features/sms-replies/repository.js';
import { createTwilioSms } from '../../server/providers/sms/twilio.js';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, createUser, dbLabel, type TestApp } from './helper.js';
import { addContact, contactStates } from './sms-replies-fixtures.js';
import { APP_URL, AUTH_TOKEN, fakeTwilio, LoopbackClient, SID, UNSUBSCRIBED_NUMBER } from './twilio-fake.js';

const URL_ = '/api/sms/inbound/';

describe(`SMS replies through Twilio (${dbLabel})`, () => {
  let t: TestApp;
  let app: FastifyInstance;
  let fake: Awaited<ReturnType<typeof fakeTwilio>>;

  beforeAll(async () => {
    fake = await fakeTwilio();
    const env = { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_FROM: '+15005550006' };
    t = await buildTestApp({ APP_URL, ...env }, undefined, {
      providers: () => ({
        sms: createTwilioSms({
          accountSid: SID,
          authToken: AUTH_TOKEN,
          from: '+15005550006',
          statusCallbackUrl: `${APP_URL}/api/sms/status/`,
          httpClient: new LoopbackClient(fake.url),
        }),
      }),
    });
    app = t.app;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => fake.server.close(resolve));
  });

  /** An inbound SMS as Twilio posts it, signed with the auth token unless `signature` is given. */
  function inbound(params: Record<string, string>, signature?: string) {
    return app.inject({
      method: 'POST',
      url: URL_,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${APP_URL}${URL_}`, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }
  const optedOut = (phone: string) =>
    app.db.selectFrom('sms_opt_outs').selectAll().where('phone_number', '=', phone).executeTakeFirst();

  it('refuses a forged inbound SMS with 403 and changes nothing; the same SMS signed by Twilio is taken', async () => {
    const phone = '+351961111111';
    const form = { From: phone, Body: 'STOP', MessageSid: 'SM1' };
    const forged = await inbound(form, 'not-a-signature');
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ code: 'invalid_signature' });
    const unsigned = await app.inject({
      method: 'POST',
      url: URL_,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    expect(unsigned.statusCode).toBe(403);
    // Signed for another body: the signature covers every field.
    const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${APP_URL}${URL_}`, { ...form, Body: 'YES' });
    expect((await inbound(form, signature)).statusCode).toBe(403);
    expect(await optedOut(phone)).toBeUndefined();

    const signed = await inbound(form);
    expect(signed.statusCode).toBe(200);
    expect(signed.headers['content-type']).toMatch(/^text\/xml/);
    expect(await optedOut(phone)).toMatchObject({ source: 'reply' });
  });

  it('marks a number opted out when Twilio refuses a send with error 21610, and sends it nothing after', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', UNSUBSCRIBED_NUMBER],
        ['Rui', '+351962222222'],
      ],
    });
    const alert = (await postAlert(app, owner.token)).json();
    await app.dispatcher.drain();
    const rows = await app.db
      .selectFrom('deliveries')
      .select(['phone_number', 'status', 'last_error'])
      .where('alert_id', '=', alert.id)
      .orderBy('contact_name')
      .execute();
    expect(rows.map((row) => row.status)).toEqual(['opted_out', 'sent']);
    expect(rows[0]?.last_error).toContain('21610');
    expect(await optedOut(UNSUBSCRIBED_NUMBER)).toMatchObject({ source: 'provider' });
    const usage = await app.db.selectFrom('usage_records').selectAll().where('user_id', '=', owner.user.id).execute();
    expect(usage).toHaveLength(1);

    const tried = fake.requests.filter((r) => r.form.To === UNSUBSCRIBED_NUMBER).length;
    const other = await ownerWithContacts(app, { contacts: [['Ana', UNSUBSCRIBED_NUMBER]] });
    const next = (await postAlert(app, other.token)).json();
    await app.dispatcher.drain();
    expect(next.deliveries).toEqual([{ contact_name: 'Ana', status: 'failed', opted_out: true }]);
    expect(fake.requests.filter((r) => r.form.To === UNSUBSCRIBED_NUMBER)).toHaveLength(tried);
  });

  it('acts once on the same signed inbound SMS posted twice, and answers Twilio 200 both times', async () => {
    const phone = '+351963333333';
    const subscriber = async () => {
      const owner = await createUser(app);
      await activateSubscription(app.db, { userId: owner.user.id, plan: 'premium', now: t.clock.now() });
      return owner;
    };
    const earlier = await subscriber();
    const later = await subscriber();
    await addContact(app, earlier.headers, 'Ana', phone);
    t.clock.advance(1000);
    await addContact(app, later.headers, 'Ana', phone);
    const form = { From: phone, Body: 'YES', MessageSid: 'SMreplayed0000000000000000000001' };
    for (let i = 0; i < 2; i += 1) {
      const res = await inbound(form);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<Response></Response>');
    }
    // One YES confirms one invitation (the latest): the replay did not confirm the earlier one.
    expect(await contactStates(app, later.headers)).toEqual({ [phone]: 'confirmed' });
    expect(await contactStates(app, earlier.headers)).toEqual({ [phone]: 'invited' });
    // Another message with the same text is another reply.
    expect((await inbound({ ...form, MessageSid: 'SMreplayed0000000000000000000002' })).statusCode).toBe(200);
    expect(await contactStates(app, earlier.headers)).toEqual({ [phone]: 'confirmed' });
  });

  it('forgets the inbound SMS it took once they are a day old', async () => {
    const seen = () =>
      app.db.selectFrom('sms_inbound_seen').select('message_sid').where('message_sid', 'like', 'SMold%').execute();
    await app.db
      .insertInto('sms_inbound_seen')
      .values([
        { message_sid: 'SMold-kept', created_at: t.clock.now() - REPLAY_WINDOW_MS + 1000 },
        { message_sid: 'SMold-gone', created_at: t.clock.now() - REPLAY_WINDOW_MS - 1000 },
      ])
      .execute();
    await forgetOldInbound(app.db, t.clock.now());
    expect(await seen()).toEqual([{ message_sid: 'SMold-kept' }]);
  });
});
