import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTwilioVoice } from '../../server/providers/voice/twilio.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, moveTime, type TestApp } from './helper.js';
import { sendRealAlert } from './live-fixtures.js';
import { APP_URL, AUTH_TOKEN, fakeTwilio, LoopbackClient, SID } from './twilio-fake.js';

const FROM = '+15005550006';

// Escalation calls through Twilio's SDK, against a fake of its API on loopback: the call's
// TwiML, and the gather and status callbacks, each checked against Twilio's real signature.
describe(`Twilio voice adapter and callbacks (${dbLabel})`, () => {
  let t: TestApp;
  let app: FastifyInstance;
  let fake: Awaited<ReturnType<typeof fakeTwilio>>;

  beforeAll(async () => {
    fake = await fakeTwilio();
    t = await buildTestApp({ APP_URL }, undefined, {
      providers: () => ({
        voice: createTwilioVoice({
          accountSid: SID,
          authToken: AUTH_TOKEN,
          from: FROM,
          callbackBase: `${APP_URL}/api/voice/`,
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

  /** Posts a voice callback signed as Twilio signs it (or with the given signature). */
  function callback(path: 'gather' | 'status', query: string, params: Record<string, string>, signature?: string) {
    const url = `${APP_URL}/api/voice/${path}/${query}`;
    return app.inject({
      method: 'POST',
      url: `/api/voice/${path}/${query}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params),
      },
      payload: new URLSearchParams(params).toString(),
    });
  }
  const calls = (alertId: string) =>
    app.db.selectFrom('escalation_calls').selectAll().where('alert_id', '=', alertId).orderBy('contact_name').execute();

  it('places each call with TwiML that says the words twice in a one-key gather, and callbacks carrying our call id', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351915550001'],
        ['Rui', '+351915550002'],
      ],
    });
    const alert = await sendRealAlert(app, owner.token);
    moveTime(t, 300_000);
    await app.timers.runDue();
    const rows = await calls(alert.id);
    expect(rows.map((r) => r.status)).toEqual(['ringing', 'ringing']);
    const placed = fake.requests.filter((r) => r.path.endsWith('/Calls.json'));
    for (const row of rows) {
      const request = placed.find((r) => r.form.To === row.phone_number);
      expect(request?.authorization).toBe(`Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`);
      expect(request?.form).toMatchObject({
        From: FROM,
        StatusCallback: `${APP_URL}/api/voice/status/?c=${row.id}`,
        StatusCallbackMethod: 'POST',
      });
      const twiml = request?.form.Twiml ?? '';
      expect(twiml).toContain(`<Gather numDigits="1" action="${APP_URL}/api/voice/gather/?c=${row.id}" method="POST">`);
      expect(
        twiml.match(/<Say language="en-GB">[^<]*needs help\.[^<]*Press 1 if you will help\.<\/Say>/g),
      ).toHaveLength(2);
      expect(row.provider_call_id).toMatch(/^CA\d{32}$/);
    }
  });

  it('records 1 pressed on a signed gather as the contact’s "on my way", moves calls on status callbacks, refuses bad signatures', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351915550003'],
        ['Rui', '+351915550004'],
      ],
    });
    const alert = await sendRealAlert(app, owner.token);
    moveTime(t, 300_000);
    await app.timers.runDue();
    const [ana, rui] = await calls(alert.id);
    if (!ana || !rui) throw new Error('calls missing');
    const pressed = { CallSid: ana.provider_call_id ?? '', Digits: '1', AccountSid: SID };

    const forged = await callback('gather', `?c=${ana.id}`, pressed, 'bm90IGEgcmVhbCBzaWduYXR1cmU=');
    expect(forged.statusCode).toBe(403);
    expect(forged.json()).toMatchObject({ code: 'invalid_signature' });
    const tampered = await callback(
      'gather',
      `?c=${ana.id}`,
      pressed,
      twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${APP_URL}/api/voice/gather/?c=${rui.id}`, pressed),
    );
    expect(tampered.statusCode).toBe(403);
    expect((await calls(alert.id))[0]?.status).toBe('ringing');

    const gathered = await callback('gather', `?c=${ana.id}`, pressed);
    expect(gathered.statusCode).toBe(200);
    expect(gathered.headers['content-type']).toMatch(/^text\/xml/);
    expect(gathered.body).toContain(
      `<Say language="en-GB">Thank you. ${owner.user.username} will see that you are on your way.</Say>`,
    );
    const live = (await app.inject({ method: 'GET', url: `/api/live/${alert.public_id}/` })).json();
    expect(live.responders).toMatchObject([{ name: 'Ana', contact: true }]);

    const status = (CallStatus: string, call = rui) =>
      callback('status', `?c=${call.id}`, { CallSid: call.provider_call_id ?? '', CallStatus });
    expect((await status('busy')).statusCode).toBe(204);
    // An ended call never moves again; an acknowledged one neither.
    await status('in-progress');
    await status('completed', ana);
    expect((await calls(alert.id)).map((c) => c.status)).toEqual(['acknowledged', 'busy']);
    expect((await callback('gather', '?c=unknown', pressed)).statusCode).toBe(404);
  });
});
