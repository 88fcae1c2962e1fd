import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_MESSAGE } from '../../common/sms-text-replies.js';
import { noticeJob } from '../../server/features/sms-replies/notices.js';
import type { JobHandler } from '../../server/jobs/index.js';
import { BACKOFF_JITTER, JOB_MAX_ATTEMPTS, JOB_MAX_RETRY_MS } from '../../server/lib/reliability.js';
import { createTwilioSms } from '../../server/providers/sms/twilio.js';
import { buildTestApp, dbLabel, moveTime, type TestApp } from './helper.js';
import { replySms } from './sms-replies-fixtures.js';
import { APP_URL, AUTH_TOKEN, fakeTwilio, LoopbackClient, SID } from './twilio-fake.js';

/** How long these tests' notice job waits for Twilio's answer to a send (ms). */
const SEND_TIMEOUT_MS = 150;

describe(`an SMS notice sent through Twilio (${dbLabel})`, () => {
  let t: TestApp;
  let fake: Awaited<ReturnType<typeof fakeTwilio>>;
  let job: JobHandler;
  let next = 0;

  beforeAll(async () => {
    // Twilio dates its messages by the test's clock, as the notices are.
    fake = await fakeTwilio({ now: () => t.clock.now() });
    const sms = createTwilioSms({
      accountSid: SID,
      authToken: AUTH_TOKEN,
      from: '+15005550006',
      statusCallbackUrl: `${APP_URL}/api/sms/status/`,
      httpClient: new LoopbackClient(fake.url),
    });
    t = await buildTestApp({ APP_URL });
    // The notice job as the app registers it, on Twilio, run here by hand attempt by attempt.
    job = noticeJob({ db: t.app.db, clock: t.clock, sms }, { sendTimeoutMs: SEND_TIMEOUT_MS });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => fake.server.close(resolve));
  });

  /** A queued help notice to a fresh number, without the app's own job (these tests run it). */
  async function queued() {
    next += 1;
    const phone = `+35196400${String(next).padStart(4, '0')}`;
    const id = randomUUID();
    const now = t.clock.now();
    await t.app.db
      .insertInto('sms_notices')
      .values({
        id,
        user_id: null,
        phone_number: phone,
        kind: 'help',
        body: HELP_MESSAGE,
        status: 'queued',
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { id, phone };
  }
  const run = (subject: string, attempt: number) =>
    job({
      subject,
      attempt,
      dueAt: t.clock.now(),
      signal: new AbortController().signal,
      holds: async () => true,
      leaseToken: 'run',
    });
  const statusOf = async (id: string) =>
    (await t.app.db.selectFrom('sms_notices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const sentTo = (phone: string) => fake.messages.filter((m) => m.to === phone);

  it('a send Twilio took but never answered is not sent again: the next attempt finds it and settles it sent', async () => {
    const { id, phone } = await queued();
    const release = fake.holdAnswers();
    await expect(run(id, 1)).rejects.toThrow(`provider did not answer within ${SEND_TIMEOUT_MS} ms`);
    release();
    expect(sentTo(phone)).toHaveLength(1);
    expect(await statusOf(id)).toBe('queued');

    await run(id, 2);
    expect(sentTo(phone)).toHaveLength(1);
    expect(await statusOf(id)).toBe('sent');
  });

  it('a send Twilio never took is sent on the next attempt, once', async () => {
    const { id, phone } = await queued();
    fake.loseMessages(1);
    await expect(run(id, 1)).rejects.toThrow();
    expect(sentTo(phone)).toHaveLength(0);

    await run(id, 2);
    expect(sentTo(phone).map((m) => m.body)).toEqual([HELP_MESSAGE]);
    expect(await statusOf(id)).toBe('sent');
  });

  it('marks a notice whose job the app parked (out of attempts) failed, with its reason, not queued for ever', async () => {
    next += 1;
    const phone = `+35196400${String(next).padStart(4, '0')}`;
    // The app's own engine and notice job, on its embedded adapter, which refuses every send.
    t.sms.failNext(JOB_MAX_ATTEMPTS + 5, 'carrier unreachable');
    try {
      expect(await replySms(t.app, phone, 'hello?')).toBe('helped');
      for (let run = 0; run <= JOB_MAX_ATTEMPTS; run += 1) {
        await t.app.jobs.runDue();
        // The longest wait, jitter included.
        moveTime(t, JOB_MAX_RETRY_MS * (1 + BACKOFF_JITTER));
      }
    } finally {
      t.sms.failNext(0);
    }
    const notice = await t.app.db
      .selectFrom('sms_notices')
      .select(['id', 'status', 'last_error'])
      .where('phone_number', '=', phone)
      .executeTakeFirstOrThrow();
    expect(notice).toMatchObject({ status: 'failed', last_error: expect.stringContaining('carrier unreachable') });
    const job = await t.app.db
      .selectFrom('jobs')
      .select(['attempts', 'failed_at'])
      .where('kind', '=', 'sms-notice')
      .where('subject', '=', notice.id)
      .executeTakeFirstOrThrow();
    expect(Number(job.attempts)).toBe(JOB_MAX_ATTEMPTS);
    expect(job.failed_at).not.toBeNull();
  });
});
