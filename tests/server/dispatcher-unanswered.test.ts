import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryKind } from '../../server/db/schema.js';
import { createDispatcher, type DispatcherOptions } from '../../server/features/alerts/dispatcher.js';
import { ManualClock } from '../../server/lib/clock.js';
import { createTwilioSms } from '../../server/providers/sms/twilio.js';
import { eventually, queuedSms } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { secondConnection } from './second-process.js';
import { APP_URL, AUTH_TOKEN, type FakeTwilio, fakeTwilio, LoopbackClient, SID } from './twilio-fake.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A send timeout the tests can wait out (Twilio's answers are held past it). */
const SEND_TIMEOUT_MS = 150;

// Sends Twilio never answered in time: the dispatcher asks Twilio (the fake, through the real SDK)
// before sending again, so an SMS Twilio took is not sent twice, and one it never got is still sent.
describe(`Unanswered SMS sends (${dbLabel})`, () => {
  let t: TestApp;
  let fake: FakeTwilio;
  // The dispatchers' and the fake's clock, an hour ahead of the app's: its own dispatcher finds nothing due.
  let clock: ManualClock;
  let phone = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    clock = new ManualClock(t.clock.now() + HOUR);
    fake = await fakeTwilio({ now: () => clock.now() });
  });
  afterAll(async () => {
    await t.close();
    // The SDK's clients keep their connections open.
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
  });

  /** The Twilio adapter on the fake; the SDK's own request timeout is `timeoutMs` (30 s unless told). */
  const twilioSms = (timeoutMs?: number) =>
    createTwilioSms({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      from: '+15005550006',
      statusCallbackUrl: `${APP_URL}/api/sms/status/`,
      httpClient: new LoopbackClient(fake.url, timeoutMs ? { timeout: timeoutMs } : undefined),
    });
  const dispatcher = (options: Partial<DispatcherOptions> = {}) =>
    createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: twilioSms(), clock, ...options });

  /** A real alert's SMS (its own live-link key in the text), or a delivery of `kind` with a shared text, due now. */
  async function queued(kind: DeliveryKind = 'alert') {
    phone += 1;
    const to = `+3519700${String(phone).padStart(5, '0')}`;
    const { id, read } = await queuedSms(t.app, { appUrl: APP_URL, to, now: clock.now(), kind });
    const usage = () => t.app.db.selectFrom('usage_records').select('id').where('delivery_id', '=', id).execute();
    const lookups = () => fake.requests.filter((r) => r.method === 'GET' && r.path.includes(encodeURIComponent(to)));
    return { to, read, usage, lookups, sent: () => fake.messages.filter((m) => m.to === to) };
  }

  /** A first attempt Twilio takes (or loses) but answers only after `sender` stopped waiting. */
  async function unansweredAttempt(
    d: Awaited<ReturnType<typeof queued>>,
    sender: ReturnType<typeof dispatcher>,
    { lost = false } = {},
  ) {
    const release = fake.holdAnswers();
    if (lost) fake.loseMessages(1);
    try {
      await sender.drain();
      // On a busy machine the request may reach Twilio after the dispatcher stopped waiting.
      if (!lost)
        await eventually(
          async () => d.sent().length,
          (n) => n === 1,
        );
    } finally {
      release();
    }
  }

  it('does not send again an SMS Twilio accepted but answered after the send timeout', async () => {
    const d = await queued();
    const sender = dispatcher({ sendTimeoutMs: SEND_TIMEOUT_MS });
    await unansweredAttempt(d, sender);
    expect(d.sent()).toHaveLength(1);
    const waiting = await d.read();
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, unanswered_since: clock.now() });
    expect(waiting.last_error).toContain('did not answer');

    clock.advance(MINUTE);
    await sender.drain();
    expect(d.sent()).toHaveLength(1);
    expect(d.lookups()).toHaveLength(1);
    expect(await d.read()).toMatchObject({ status: 'sent', attempts: 2, provider_message_id: d.sent()[0]?.sid });
    expect(await d.usage()).toHaveLength(1);
  });

  it('takes a request the SDK gave up waiting for as unanswered too: not sent again', async () => {
    const d = await queued();
    const sender = dispatcher({ sms: twilioSms(SEND_TIMEOUT_MS), sendTimeoutMs: 10_000 });
    await unansweredAttempt(d, sender);
    const waiting = await d.read();
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, unanswered_since: clock.now() });
    expect(waiting.last_error).toContain('timeout');

    clock.advance(MINUTE);
    await sender.drain();
    expect(d.sent()).toHaveLength(1);
    expect(await d.read()).toMatchObject({ status: 'sent', attempts: 2, provider_message_id: d.sent()[0]?.sid });
  });

  it('sends once when a second dispatcher takes over a send stalled past its lease', async () => {
    const d = await queued();
    const other = await secondConnection(t);
    const release = fake.holdAnswers();
    try {
      // Stalled: its renewals stop with it.
      const first = dispatcher({ sendTimeoutMs: 10_000, renewMs: HOUR });
      const claimedAt = clock.now();
      const stalled = first.runOnce();
      await eventually(
        async () => d.sent().length,
        (n) => n === 1,
      );
      expect((await d.read()).status).toBe('sending');

      // The first dispatcher's lease runs out while Twilio holds its answer: another process takes over.
      clock.advance(2 * MINUTE);
      const second = dispatcher({ db: other.db, dialect: other.dialect, sendTimeoutMs: 1_000 });
      expect(await second.runOnce()).toBe(1);
      expect(d.sent()).toHaveLength(1);
      expect(await d.read()).toMatchObject({
        status: 'sent',
        attempts: 2,
        provider_message_id: d.sent()[0]?.sid,
        unanswered_since: claimedAt,
      });

      // The first one's answer comes at last: recorded again, billed once.
      release();
      await stalled;
      expect(await d.read()).toMatchObject({ status: 'sent', provider_message_id: d.sent()[0]?.sid });
      expect(await d.usage()).toHaveLength(1);
      expect(d.sent()).toHaveLength(1);
    } finally {
      release();
      await other.close();
    }
  });

  it('sends an SMS whose first attempt never reached Twilio', async () => {
    const d = await queued();
    const sender = dispatcher({ sendTimeoutMs: SEND_TIMEOUT_MS });
    await unansweredAttempt(d, sender, { lost: true });
    expect(d.sent()).toHaveLength(0);
    expect(await d.read()).toMatchObject({ status: 'queued', attempts: 1, unanswered_since: clock.now() });

    clock.advance(MINUTE);
    await sender.drain();
    expect(d.lookups()).toHaveLength(1);
    expect(d.sent()).toHaveLength(1);
    expect(await d.read()).toMatchObject({ status: 'sent', attempts: 2, provider_message_id: d.sent()[0]?.sid });
    expect(await d.usage()).toHaveLength(1);
  });

  it('sends again when Twilio cannot be asked: two SMS rather than none', async () => {
    const d = await queued();
    const sender = dispatcher({ sendTimeoutMs: SEND_TIMEOUT_MS });
    await unansweredAttempt(d, sender);
    clock.advance(MINUTE);
    fake.failLists(1);
    await sender.drain();
    expect(d.lookups()).toHaveLength(1);
    expect(d.sent()).toHaveLength(2);
    expect(await d.read()).toMatchObject({ status: 'sent', provider_message_id: d.sent()[1]?.sid });
    expect(await d.usage()).toHaveLength(1);
  });

  it('sends again, without asking, a text the number may have had from another delivery (an all-clear)', async () => {
    const d = await queued('all_clear');
    const sender = dispatcher({ sendTimeoutMs: SEND_TIMEOUT_MS });
    await unansweredAttempt(d, sender);
    clock.advance(MINUTE);
    await sender.drain();
    expect(d.lookups()).toHaveLength(0);
    expect(d.sent()).toHaveLength(2);
    expect((await d.read()).status).toBe('sent');
  });

  it('the dev outbox finds the SMS it captured, by number and exact text since a time', async () => {
    const { providerMessageId } = await t.sms.send({ to: '+351970099999', body: 'Help: x', reference: 'd1' });
    const since = t.clock.now();
    expect(await t.sms.find?.({ to: '+351970099999', body: 'Help: x', since })).toEqual({ providerMessageId });
    expect(await t.sms.find?.({ to: '+351970099999', body: 'Help: y', since })).toBeUndefined();
    expect(await t.sms.find?.({ to: '+351970099998', body: 'Help: x', since })).toBeUndefined();
    expect(await t.sms.find?.({ to: '+351970099999', body: 'Help: x', since: since + 1 })).toBeUndefined();
  });
});
