import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmsPort } from '../../server/providers/sms/port.js';
import { createTwilioSms } from '../../server/providers/sms/twilio.js';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { APP_URL, AUTH_TOKEN, fakeTwilio, INVALID_NUMBER, LoopbackClient, SID } from './twilio-fake.js';

describe(`Twilio SMS adapter and status callbacks (${dbLabel})`, () => {
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

  const deliveries = (alertId: string) =>
    app.db.selectFrom('deliveries').selectAll().where('alert_id', '=', alertId).orderBy('contact_name').execute();

  /** Posts a status callback signed as Twilio signs it (or with the given signature). */
  function callback(query: string, params: Record<string, string>, signature?: string) {
    const url = `${APP_URL}/api/sms/status/${query}`;
    return app.inject({
      method: 'POST',
      url: `/api/sms/status/${query}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }

  it('sends through the SDK over HTTP with the from number and a status callback per delivery', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351911111111'],
        ['Rui', '+351922222222'],
      ],
    });
    const alert = (await postAlert(app, owner.token)).json();
    await app.dispatcher.drain();
    const rows = await deliveries(alert.id);
    expect(rows.map((d) => d.status)).toEqual(['sent', 'sent']);
    const sent = fake.requests.filter((r) => r.form.To?.startsWith('+3519'));
    expect(sent).toHaveLength(2);
    const basic = `Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`;
    for (const row of rows) {
      const request = sent.find((r) => r.form.To === row.phone_number);
      expect(request?.authorization).toBe(basic);
      expect(request?.form).toMatchObject({
        From: '+15005550006',
        Body: row.body,
        StatusCallback: `${APP_URL}/api/sms/status/?d=${row.id}`,
      });
      expect(row.provider_message_id).toMatch(/^SM\d{32}$/);
    }
  });

  it('moves deliveries on signed callbacks, refuses bad signatures, never moves backwards', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351933333333'],
        ['Rui', '+351944444444'],
      ],
    });
    const alert = (await postAlert(app, owner.token)).json();
    await app.dispatcher.drain();
    const [ana, rui] = await deliveries(alert.id);
    if (!ana || !rui) throw new Error('deliveries missing');
    const delivered = { MessageSid: ana.provider_message_id as string, MessageStatus: 'delivered', AccountSid: SID };

    const forged = await callback(`?d=${ana.id}`, delivered, 'bm90IGEgcmVhbCBzaWduYXR1cmU=');
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ code: 'invalid_signature' });
    const unsigned = await app.inject({
      method: 'POST',
      url: '/api/sms/status/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(delivered).toString(),
    });
    expect(unsigned.statusCode).toBe(403);
    // A signature for other parameters does not fit these.
    const tampered = await callback(
      `?d=${ana.id}`,
      delivered,
      twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${APP_URL}/api/sms/status/?d=${ana.id}`, {
        ...delivered,
        MessageStatus: 'sent',
      }),
    );
    expect(tampered.statusCode).toBe(403);
    expect((await deliveries(alert.id))[0]?.status).toBe('sent');

    expect((await callback(`?d=${ana.id}`, delivered)).statusCode).toBe(204);
    expect((await deliveries(alert.id))[0]?.status).toBe('delivered');
    // Duplicates and late reports change nothing.
    await callback(`?d=${ana.id}`, delivered);
    await callback(`?d=${ana.id}`, { ...delivered, MessageStatus: 'sent' });
    await callback(`?d=${ana.id}`, { ...delivered, MessageStatus: 'failed', ErrorCode: '30008' });
    expect((await deliveries(alert.id))[0]).toMatchObject({ status: 'delivered', last_error: null });

    // Found by message id alone too; undelivered is final and shown as failed.
    const undelivered = {
      MessageSid: rui.provider_message_id as string,
      MessageStatus: 'undelivered',
      ErrorCode: '30003',
    };
    expect((await callback('', undelivered)).statusCode).toBe(204);
    await callback('', { ...undelivered, MessageStatus: 'delivered', ErrorCode: '' });
    expect((await deliveries(alert.id))[1]).toMatchObject({ status: 'undelivered', last_error: 'Twilio error 30003' });
    const shown = await app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/` });
    expect(shown.json().deliveries).toEqual([
      { contact_name: 'Ana', status: 'delivered' },
      { contact_name: 'Rui', status: 'failed' },
    ]);
  });

  it('fails a delivery at once when Twilio refuses the number, keeping its reason', async () => {
    const owner = await ownerWithContacts(app, { contacts: [['Ana', INVALID_NUMBER]] });
    const alert = (await postAlert(app, owner.token)).json();
    await app.dispatcher.drain();
    const [row] = await deliveries(alert.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row?.last_error).toContain('Twilio error 21211');
  });

  it('sends from a messaging service when one is configured', async () => {
    const sms = createTwilioSms({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      messagingServiceSid: 'MG00000000000000000000000000000001',
      statusCallbackUrl: `${APP_URL}/api/sms/status/`,
      httpClient: new LoopbackClient(fake.url),
    });
    const { providerMessageId } = await sms.send({ to: '+351955555555', body: 'hello', reference: 'd1' });
    expect(providerMessageId).toMatch(/^SM/);
    const request = fake.requests.find((r) => r.form.To === '+351955555555');
    expect(request?.form).toMatchObject({ MessagingServiceSid: 'MG00000000000000000000000000000001', Body: 'hello' });
    expect(request?.form.From).toBeUndefined();
  });

  it('finds a message Twilio holds by number and exact text since a time, through the SDK and its pages', async () => {
    const sms = createTwilioSms({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      from: '+15005550006',
      statusCallbackUrl: `${APP_URL}/api/sms/status/`,
      httpClient: new LoopbackClient(fake.url),
    });
    const to = '+351966666666';
    const since = Date.now();
    const sids: string[] = [];
    for (const body of ['one', 'two', 'three'])
      sids.push((await sms.send({ to, body, reference: body })).providerMessageId);
    await sms.send({ to: '+351977777777', body: 'one', reference: 'elsewhere' });

    expect(await sms.find?.({ to, body: 'one', since })).toEqual({ providerMessageId: sids[0] });
    expect(await sms.find?.({ to, body: 'on', since })).toBeUndefined();
    const lists = () => fake.requests.filter((r) => r.method === 'GET');
    const query = new URLSearchParams(lists().at(-1)?.path.split('?')[1]);
    expect(Object.fromEntries(query)).toEqual({
      To: to,
      From: '+15005550006',
      'DateSent>': new Date(Math.floor((since - 5 * 60_000) / 1000) * 1000).toISOString().replace('.000', ''),
      PageSize: '50',
    });
    // Sent before the first attempt (beyond the clocks' leeway): not this delivery's.
    expect(await sms.find?.({ to, body: 'one', since: since + 60 * 60_000 })).toBeUndefined();

    // Newest first, and the SDK follows the next pages as Twilio gives them.
    const before = lists().length;
    const client = twilio(SID, AUTH_TOKEN, { httpClient: new LoopbackClient(fake.url) });
    const listed = await client.messages.list({ to, pageSize: 2, limit: 3 });
    expect(listed.map((m) => [m.sid, m.body, m.direction])).toEqual([
      [sids[2], 'three', 'outbound-api'],
      [sids[1], 'two', 'outbound-api'],
      [sids[0], 'one', 'outbound-api'],
    ]);
    expect(lists().length - before).toBe(2);
  });

  it('owns its callbacks: the adapter checks the signature and reads the receipt; without it the route is not answered', async () => {
    const callbacks = createTwilioSms({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      from: '+15005550006',
      statusCallbackUrl: `${APP_URL}/api/sms/status/`,
    }).statusCallbacks;
    const url = `${APP_URL}/api/sms/status/?d=d1`;
    const form = { MessageSid: 'SM1', MessageStatus: 'undelivered', ErrorCode: '30003' };
    const signed = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, form);
    expect(callbacks?.verify({ url, headers: { 'x-twilio-signature': signed }, form })).toBe(true);
    expect(
      callbacks?.verify({
        url,
        headers: { 'x-twilio-signature': signed },
        form: { ...form, MessageStatus: 'delivered' },
      }),
    ).toBe(false);
    expect(callbacks?.verify({ url, headers: {}, form })).toBe(false);
    expect(callbacks?.read(form)).toEqual({
      status: 'undelivered',
      providerMessageId: 'SM1',
      reason: 'Twilio error 30003',
    });
    expect(callbacks?.read({ MessageSid: 'SM1', MessageStatus: 'sending' })).toBeNull();

    // Twilio's credentials in the settings, but an SMS adapter that takes no callbacks: the
    // signed callback is not answered, as the route no longer checks anything itself.
    const quiet: SmsPort = { name: 'outbox', send: async () => ({ providerMessageId: 'x' }), onStatus() {} };
    const other = await buildTestApp(
      { APP_URL, TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_FROM: '+15005550006' },
      undefined,
      { providers: () => ({ sms: quiet }) },
    );
    try {
      const res = await other.app.inject({
        method: 'POST',
        url: '/api/sms/status/?d=d1',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signed },
        payload: new URLSearchParams(form).toString(),
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});
