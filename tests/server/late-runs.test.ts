import type { Kysely } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { HELP_MESSAGE } from '../../common/sms-text-replies.js';
import type { Database } from '../../server/db/schema.js';
import { createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { placementJob } from '../../server/features/escalation/placement.js';
import { noticeJob, queueNotice } from '../../server/features/sms-replies/notices.js';
import { createJobs, enqueue, type JobHandler } from '../../server/jobs/index.js';
import type { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import { BACKOFF_JITTER, JOB_RETRY_MS } from '../../server/lib/reliability.js';
import type { SmsPort } from '../../server/providers/sms/port.js';
import type { VoicePort } from '../../server/providers/voice/port.js';
import { appWithClockAhead, queuedSms } from './alerts-fixtures.js';
import { dbLabel, type TestApp } from './helper.js';
import { secondConnection } from './second-process.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const APP_URL = 'https://alerta.example';
/** Past the job's 6-s lease: another process may take the job over. */
const PAST_THE_LEASE = 7 * SECOND;

/** A gate a provider's first lookup waits at: it answers what the provider held when asked, once opened. */
function firstLookupStalls() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  let asked = 0;
  return {
    open,
    asked: () => asked,
    async answer<T>(now: T): Promise<T> {
      asked += 1;
      if (asked === 1) await opened;
      return now;
    },
  };
}

/** An SMS provider that keeps what it took; its lookup stalls the first time, or cannot tell (`unsure`). */
function smsProvider(options: { unsure?: boolean; holdFirstAnswer?: Promise<void> } = {}) {
  const took: { to: string; sid: string }[] = [];
  const gate = firstLookupStalls();
  const port: SmsPort = {
    name: 'outbox',
    async send(message) {
      const sid = `SM${newId()}`;
      took.push({ to: message.to, sid });
      if (took.length === 1 && options.holdFirstAnswer) await options.holdFirstAnswer;
      return { providerMessageId: sid };
    },
    async find(lookup) {
      if (options.unsure) throw new Error('the provider cannot tell');
      const held = took.find((m) => m.to === lookup.to);
      return gate.answer(held && { providerMessageId: held.sid });
    },
    onStatus() {},
  };
  return { port, took, gate };
}

/** A voice provider that keeps the calls it took; its lookup stalls the first time; its calls may never be answered. */
function voiceProvider(options: { answer?: boolean } = {}) {
  const took: { to: string; sid: string }[] = [];
  const gate = firstLookupStalls();
  const port: VoicePort = {
    name: 'outbox',
    async place(call) {
      const sid = `CA${newId()}`;
      took.push({ to: call.to, sid });
      if (options.answer === false) await new Promise(() => {});
      return { providerCallId: sid };
    },
    async lookup(lookup) {
      return gate.answer(took.filter((c) => c.to === lookup.to).map((c) => ({ providerCallId: c.sid })));
    },
  };
  return { port, took, gate };
}

// A run of a job that lost its lease (its process stalled past it, and another process took the
// job over) has no effect: right before its provider call it asks whether it still holds the
// job, and its delivery's `sent` is written only while it does. A call the provider never
// answers is bounded by a timeout of its own, as an SMS send is.
describe(`runs that lost their job, and calls the provider never answers (${dbLabel})`, () => {
  let t: TestApp;
  // An hour ahead of the app's clock: the app's own engine finds none of these jobs due.
  let clock: ManualClock;
  let phone = 0;
  appWithClockAhead((ahead) => {
    ({ t, clock } = ahead);
  });
  const warnings: { message: string; delivery?: string }[] = [];
  const log = {
    warn: (fields: { delivery?: string }, message: string) => warnings.push({ message, delivery: fields.delivery }),
    error() {},
    info() {},
  } as never;

  /** A real alert's SMS to a number of its own, queued with its job due now. */
  async function queued() {
    phone += 1;
    const to = `+3519680${String(phone).padStart(5, '0')}`;
    return { to, ...(await queuedSms(t.app, { appUrl: APP_URL, to, now: clock.now() })) };
  }

  /** Runs `body` with another process's connections to the database. */
  async function withSecond(body: (db: Kysely<Database>) => Promise<void>) {
    const other = await secondConnection(t);
    try {
      await body(other.db);
    } finally {
      await other.close();
    }
  }

  /** The SMS of a process on `db`, sent to `sms`; with `renewMs` an hour, one stalled for good. */
  const dispatcher = (sms: SmsPort, db: Kysely<Database>, renewMs?: number) =>
    createDispatcher({ db, dialect: t.app.dialect, sms, clock, log, ...(renewMs ? { renewMs } : {}) });

  /**
   * Past the lease of a run stalled at the provider's gate, another process's run takes the job and
   * hands it to the provider; then the stalled run is let go, and has no effect.
   */
  async function takenOverWhileStalled(
    stalling: Promise<unknown>,
    provider: { took: unknown[]; gate: { open(): void } },
    runOther: (db: Kysely<Database>) => Promise<number>,
  ) {
    clock.advance(PAST_THE_LEASE);
    await withSecond(async (db) => {
      expect(await runOther(db)).toBe(1);
    });
    expect(provider.took).toHaveLength(1);
    // Let go: the provider did not hold it when it asked, and the job is another's now.
    provider.gate.open();
    await stalling;
    expect(provider.took).toHaveLength(1);
  }

  it('a run stalled past its lease before its send sends nothing: one SMS, the provider id the winner’s', async () => {
    const d = await queued();
    // After an attempt the provider never answered: each run asks the provider first.
    await t.app.db
      .updateTable('deliveries')
      .set({ attempts: 1, unanswered_since: clock.now() - SECOND })
      .where('id', '=', d.id)
      .execute();
    const provider = smsProvider();
    // Stalled in its lookup, its renewals stopped with it.
    const stalling = dispatcher(provider.port, t.app.db, HOUR).drain();
    await vi.waitFor(() => expect(provider.gate.asked()).toBe(1));
    await takenOverWhileStalled(stalling, provider, (db) => dispatcher(provider.port, db).runOnce());
    expect(await d.read()).toMatchObject({ status: 'sent', provider_message_id: provider.took[0]?.sid });
  });

  it('a late run’s "sent" changes nothing and is logged: the provider id stays the winner’s', async () => {
    const d = await queued();
    let answer: () => void = () => {};
    const provider = smsProvider({ unsure: true, holdFirstAnswer: new Promise((resolve) => (answer = resolve)) });
    const stalling = dispatcher(provider.port, t.app.db, HOUR).drain();
    await vi.waitFor(() => expect(provider.took).toHaveLength(1));
    clock.advance(PAST_THE_LEASE);
    // The provider cannot tell whether it holds the first send: sent again, rather than never.
    await withSecond(async (db) => {
      expect(await dispatcher(provider.port, db).runOnce()).toBe(1);
    });
    const winner = provider.took[1]?.sid;
    expect(await d.read()).toMatchObject({ status: 'sent', provider_message_id: winner });
    answer();
    await stalling;
    expect(await d.read()).toMatchObject({ status: 'sent', provider_message_id: winner });
    expect(warnings.filter((w) => w.delivery === d.id).map((w) => w.message)).toContain(
      'SMS sent by a run whose job was taken over: not recorded, the other run records its outcome',
    );
    const usage = await t.app.db.selectFrom('usage_records').select('id').where('delivery_id', '=', d.id).execute();
    expect(usage).toHaveLength(1);
  });

  /**
   * The help text to a number of its own, queued with its job (a kind of the test's own) due now
   * after an attempt that went unanswered: each run asks the provider first. Reads the notice.
   */
  async function queuedNotice(kind: string) {
    phone += 1;
    const to = `+3519690${String(phone).padStart(5, '0')}`;
    const now = clock.now();
    await queueNotice(t.app.db, { phone: to, kind: 'help', body: HELP_MESSAGE, now });
    const notice = () =>
      t.app.db.selectFrom('sms_notices').selectAll().where('phone_number', '=', to).executeTakeFirstOrThrow();
    const { id } = await notice();
    await t.app.db
      .updateTable('jobs')
      .set({ kind, attempts: 1 })
      .where('kind', '=', 'sms-notice')
      .where('subject', '=', id)
      .execute();
    return notice;
  }

  /** A process's job engine on `db`, running `kind` with `handler`; with `renewMs` an hour, one stalled for good. */
  const engineOf = (db: Kysely<Database>, kind: string, handler: JobHandler, renewMs?: number) => {
    const engine = createJobs({
      db,
      dialect: t.app.dialect,
      clock,
      log,
      kinds: { [kind]: {} },
      ...(renewMs ? { renewMs } : {}),
    });
    engine.handle(kind, handler);
    return engine;
  };

  /** The notices of a process on `db`, sent to `sms`. */
  const noticing = (db: Kysely<Database>, sms: SmsPort, kind: string, renewMs?: number) =>
    engineOf(db, kind, noticeJob({ db, clock, sms }), renewMs);

  it('a notice whose run stalled past its lease before its send is sent once, by the run that took it over', async () => {
    const kind = `late-notice-${newId()}`;
    const read = await queuedNotice(kind);
    const provider = smsProvider();
    const stalling = noticing(t.app.db, provider.port, kind, HOUR).runDue();
    await vi.waitFor(() => expect(provider.gate.asked()).toBe(1));
    await takenOverWhileStalled(stalling, provider, (db) => noticing(db, provider.port, kind).runDue());
    expect(await read()).toMatchObject({ status: 'sent' });
  });

  /** A call of a real alert, queued, with its placement job (a kind of the test's own) due now; `placed` when an attempt began. */
  async function queuedCall(kind: string, placed: boolean) {
    const d = await queued();
    const { alert_id } = await d.read();
    const id = newId();
    const now = clock.now();
    await t.app.db
      .insertInto('escalation_calls')
      .values({
        id,
        alert_id,
        delivery_id: d.id,
        contact_name: 'Ana',
        phone_number: d.to,
        status: 'queued',
        provider_call_id: null,
        last_error: null,
        placed_at: placed ? now - SECOND : null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await enqueue<string>(t.app.db, { kind, subject: id, dueAt: now, now });
    const read = () =>
      t.app.db.selectFrom('escalation_calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    return { read };
  }

  const placing = (
    db: Kysely<Database>,
    voice: VoicePort,
    kind: string,
    options: { renewMs?: number; timeoutMs?: number } = {},
  ) => {
    const deps = { db, clock, log, voice, payments: t.app.payments, liveHub: t.app.liveHub };
    const job = placementJob(deps, options.timeoutMs ? { placeTimeoutMs: options.timeoutMs } : {});
    return engineOf(db, kind, job, options.renewMs);
  };

  it('a call whose run stalled past its lease before placing it is placed once, by the run that took it over', async () => {
    const kind = `late-call-${newId()}`;
    const call = await queuedCall(kind, true);
    const voice = voiceProvider();
    const stalling = placing(t.app.db, voice.port, kind, { renewMs: HOUR }).runDue();
    await vi.waitFor(() => expect(voice.gate.asked()).toBe(1));
    await takenOverWhileStalled(stalling, voice, (db) => placing(db, voice.port, kind).runDue());
    expect(await call.read()).toMatchObject({ status: 'ringing', provider_call_id: voice.took[0]?.sid });
  });

  it('a call the voice provider never answers fails after its timeout, and the retry finds it at the provider', async () => {
    const kind = `hung-call-${newId()}`;
    const call = await queuedCall(kind, false);
    const voice = voiceProvider({ answer: false });
    const engine = placing(t.app.db, voice.port, kind, { timeoutMs: 150 });
    await engine.runDue();
    expect(await call.read()).toMatchObject({ status: 'queued', last_error: 'provider did not answer within 150 ms' });
    voice.gate.open();
    clock.advance(JOB_RETRY_MS * (1 + BACKOFF_JITTER));
    await engine.runDue();
    expect(voice.took).toHaveLength(1);
    expect(await call.read()).toMatchObject({ status: 'ringing', provider_call_id: voice.took[0]?.sid });
  });
});
