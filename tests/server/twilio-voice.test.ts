import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKOFF_JITTER, JOB_RETRY_MS } from '../../server/lib/reliability.js';
import { createTwilioVoice } from '../../server/providers/voice/twilio.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, moveTime, type TestApp } from './helper.js';
import { postAck, postResolve, sendRealAlert } from './live-fixtures.js';
import { APP_URL, AUTH_TOKEN, fakeTwilio, INVALID_NUMBER, LoopbackClient, SID } from './twilio-fake.js';

const FROM = '+15005550006';

// Escalation calls through Twilio's SDK, against a fake of its API on loopback: the call's
// TwiML, and the gather and status callbacks, each checked against Twilio's real signature.
describe(`Twilio voice adapter and callbacks (${dbLabel})`, () => {
  let t: TestApp;
  let app: FastifyInstance;
  let fake: Awaited<ReturnType<typeof fakeTwilio>>;

  beforeAll(async () => {
    // Twilio's clock reads as the app's: the calls it lists are dated on the time the tests move.
    fake = await fakeTwilio({ now: () => t?.clock.now() ?? Date.now() });
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
  /** The calls Twilio took to these numbers, and the call lists (lookups) asked of it. */
  const rungTo = (phones: string[]) => fake.calls.filter((c) => phones.includes(c.to));
  const lookupsFor = (phones: string[]) =>
    fake.requests.filter(
      (r) =>
        r.method === 'GET' &&
        r.path.includes('/Calls.json') &&
        phones.some((p) => r.path.includes(encodeURIComponent(p))),
    );
  /** An owner with these contacts whose real alert has just escalated (its calls' first attempts run). */
  async function escalated(contacts: [string, string][]) {
    const owner = await ownerWithContacts(app, { contacts });
    const alert = await sendRealAlert(app, owner.token);
    moveTime(t, 300_000);
    await app.jobs.runDue();
    return { owner, alert, phones: contacts.map(([, phone]) => phone) };
  }
  /** The retries' turn: past the first backoff and its jitter, every due job run. */
  const retry = async () => {
    moveTime(t, JOB_RETRY_MS * (1 + BACKOFF_JITTER));
    await app.jobs.runDue();
  };

  it('places each call with TwiML that says the words twice in a one-key gather, and callbacks carrying our call id', async () => {
    const owner = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351915550001'],
        ['Rui', '+351915550002'],
      ],
    });
    const alert = await sendRealAlert(app, owner.token);
    moveTime(t, 300_000);
    await app.jobs.runDue();
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
    await app.jobs.runDue();
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

  it('places a call Twilio refused once again after the backoff: it rings, once', async () => {
    fake.failCalls(1);
    const { owner, alert, phones } = await escalated([
      ['Ana', '+351915550011'],
      ['Rui', '+351915550012'],
    ]);
    const first = await calls(alert.id);
    expect(first.map((c) => c.status).sort()).toEqual(['queued', 'ringing']);
    const refused = first.find((c) => c.status === 'queued');
    expect(refused?.last_error).toMatch(/Twilio error 20500/);
    expect(rungTo(phones)).toHaveLength(1);
    // Shown waiting, not failed, while it is tried again.
    const view = await app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/` });
    expect(view.json().escalation.status).toBe('calling');
    expect(
      view
        .json()
        .escalation.calls.map((c: { status: string }) => c.status)
        .sort(),
    ).toEqual(['queued', 'ringing']);

    await retry();
    const after = await calls(alert.id);
    expect(after.map((c) => c.status)).toEqual(['ringing', 'ringing']);
    expect(
      rungTo(phones)
        .map((c) => c.to)
        .sort(),
    ).toEqual(phones);
    expect(after.map((c) => c.provider_call_id).sort()).toEqual(
      rungTo(phones)
        .map((c) => c.sid)
        .sort(),
    );
    // The refused attempt may have reached Twilio: the retry asked first.
    expect(lookupsFor([refused?.phone_number ?? ''])).not.toHaveLength(0);
    await retry();
    expect(rungTo(phones)).toHaveLength(2);
  });

  it.each([
    ['ringing out', false],
    ['still in its queue', true],
  ])('finds a call Twilio took whose answer was lost (%s) and never places it again', async (_name, queued) => {
    fake.queueCalls(queued);
    fake.cutCallAnswers(1);
    try {
      const phone = queued ? '+351915550014' : '+351915550013';
      const { alert } = await escalated([['Eva', phone]]);
      expect(rungTo([phone])).toHaveLength(1);
      expect((await calls(alert.id)).map((c) => c.status)).toEqual(['queued']);
      await retry();
      const [call] = await calls(alert.id);
      expect(call).toMatchObject({ status: 'ringing', provider_call_id: rungTo([phone])[0]?.sid });
      expect(rungTo([phone])).toHaveLength(1);
      expect(lookupsFor([phone])).not.toHaveLength(0);
    } finally {
      fake.queueCalls(false);
    }
  });

  it('marks a call to a number Twilio calls invalid failed at once, never tried again', async () => {
    const { alert } = await escalated([['Ivo', INVALID_NUMBER]]);
    const placing = () => fake.requests.filter((r) => r.method === 'POST' && r.form.To === INVALID_NUMBER).length;
    const tried = placing();
    expect(await calls(alert.id)).toMatchObject([{ status: 'failed', last_error: expect.stringMatching(/21211/) }]);
    await retry();
    expect(placing()).toBe(tried);
  });

  it('places no retry once a contact is on the way or the owner is safe', async () => {
    const answered = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351915550015'],
        ['Rui', '+351915550016'],
      ],
    });
    const safe = await ownerWithContacts(app, {
      contacts: [
        ['Ana', '+351915550017'],
        ['Rui', '+351915550018'],
      ],
    });
    const phones = ['+351915550015', '+351915550016', '+351915550017', '+351915550018'];
    const first = await sendRealAlert(app, answered.token);
    const second = await sendRealAlert(app, safe.token);
    fake.failCalls(4);
    moveTime(t, 300_000);
    await app.jobs.runDue();
    expect((await calls(first.id)).map((c) => c.status)).toEqual(['queued', 'queued']);
    expect((await calls(second.id)).map((c) => c.status)).toEqual(['queued', 'queued']);
    // The contact's own link, in the alert's SMS (the escalation's second SMS carries the alert's).
    const key = app.outbox.sms
      .filter((m) => m.to === phones[0])
      .map((m) => /\?c=([\w-]+)/.exec(m.body)?.[1])
      .find(Boolean);
    expect((await postAck(app, first.public_id, { contact_key: key })).statusCode).toBe(201);
    expect((await postResolve(app, safe.token, second.id, { notify: false })).statusCode).toBe(200);
    await retry();
    expect(rungTo(phones)).toEqual([]);
    for (const alert of [first, second]) {
      expect((await calls(alert.id)).map((c) => c.status)).toEqual(['failed', 'failed']);
    }
  });
});
