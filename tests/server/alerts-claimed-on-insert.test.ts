import { describe, expect, it } from 'vitest';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { type ClaimedAtWrite, createDispatcher } from '../../server/features/alerts/dispatcher.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { storeAlert } from '../../server/features/alerts/service.js';
import type { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import { JOB_LEASE_MS } from '../../server/lib/reliability.js';
import type { SmsMessage, SmsPort } from '../../server/providers/sms/port.js';
import { alertRow, appWithClockAhead, eventually, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, type TestApp } from './helper.js';
import { secondConnection } from './second-process.js';
import { watchStatements } from './statements-seen.js';

const MINUTE = 60_000;

// An alert's transaction writes as many of its SMS already claimed as its dispatcher has free
// slots (storeAlert, Dispatcher.claimAtWrite): sent after the commit with no claim to find them, the
// rest written queued and claimed as slots free up, each SMS once, even when the process that
// wrote them dies before sending.
describe(`SMS written claimed with their alert (${dbLabel})`, () => {
  let t: TestApp;
  // The test's dispatchers' clock, an hour ahead of the app's: the app's own dispatcher finds
  // nothing of these alerts due, and never takes over their leases.
  let clock: ManualClock;
  let phone = 0;
  appWithClockAhead((ahead) => {
    ({ t, clock } = ahead);
  });

  /** An SMS port whose sends wait until the test lets them go (`hold`); `find` answers from what it took. */
  function heldSms(hold = true) {
    const sent: (SmsMessage & { sid: string })[] = [];
    const waiting: (() => void)[] = [];
    let holding = hold;
    const port: SmsPort = {
      name: 'outbox',
      async send(message) {
        if (holding) await new Promise<void>((resolve) => waiting.push(resolve));
        const sid = `SM${newId()}`;
        sent.push({ ...message, sid });
        return { providerMessageId: sid };
      },
      async find(lookup) {
        const held = sent.find((m) => m.to === lookup.to && m.body === lookup.body);
        return held && { providerMessageId: held.sid };
      },
      onStatus() {},
    };
    const letGo = () => {
      holding = false;
      for (const resolve of waiting.splice(0)) resolve();
    };
    return { port, sent, letGo, waiting: () => waiting.length };
  }

  /** An alert with one delivery per phone number, due on the test's clock. */
  async function alertFor(count: number) {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const now = clock.now();
    const alert = alertRow(owner.user.id, { created_at: now });
    const deliveries = Array.from({ length: count }, (_, i) => {
      phone += 1;
      return queuedDelivery({
        alertId: alert.id,
        recipient: { contact_name: `Contact ${i}`, phone_number: `+3519710${String(phone).padStart(5, '0')}` },
        body: `Help ${newId()}`,
        now,
      });
    });
    const statuses = () =>
      t.app.db
        .selectFrom('deliveries')
        .select('status')
        .where('alert_id', '=', alert.id)
        .execute()
        .then((rows) => rows.map((row) => row.status).sort());
    return { alert, deliveries, now, statuses };
  }

  const deps = (dispatcher: { kick(): void; claimAtWrite(count: number): ClaimedAtWrite<'sms'> }) => ({
    db: t.app.db,
    dialect: t.app.dialect,
    config: t.app.config,
    dispatcher,
    background: t.app.background,
    jobs: t.app.jobs,
  });

  /** A started dispatcher of `concurrency` slots on the test's clock, its SMS through `sms`. */
  const started = (sms: ReturnType<typeof heldSms>, concurrency: number) => {
    const dispatcher = createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: sms.port, clock, concurrency });
    dispatcher.start();
    return dispatcher;
  };

  it('writes claimed as many SMS as there are free slots, the rest queued, and sends each once without a sweep', async () => {
    const sms = heldSms();
    const dispatcher = started(sms, 2);
    // Its first claim holds the slots until it has found nothing due.
    await dispatcher.drain();
    try {
      const a = await alertFor(5);
      const stored = await storeAlert(deps(dispatcher), a.alert, a.deliveries, a.now);
      expect(stored.created).toBe(true);
      if (!stored.created) return;
      expect(stored.deliveries.map((d) => d.status)).toEqual(['sending', 'sending', 'queued', 'queued', 'queued']);
      expect(stored.deliveries.slice(0, 2)).toMatchObject([{ attempts: 1 }, { attempts: 1 }]);
      // Their jobs are written leased to this process (its lease counted from the write), the others' due for any.
      const jobs = await t.app.db
        .selectFrom('jobs')
        .select(['subject', 'lease_until', 'attempts'])
        .where(
          'subject',
          'in',
          a.deliveries.map((d) => d.id),
        )
        .execute();
      const leaseOf = (id: string) => jobs.find((job) => job.subject === id);
      expect(stored.deliveries.map((d) => leaseOf(d.id))).toMatchObject([
        { lease_until: a.now + JOB_LEASE_MS, attempts: 1 },
        { lease_until: a.now + JOB_LEASE_MS, attempts: 1 },
        { lease_until: null, attempts: 0 },
        { lease_until: null, attempts: 0 },
        { lease_until: null, attempts: 0 },
      ]);
      // Both slots are sending the claimed two: no claim takes the queued three meanwhile.
      await eventually(
        async () => sms.waiting(),
        (n) => n === 2,
      );
      expect(await a.statuses()).toEqual(['queued', 'queued', 'queued', 'sending', 'sending']);
      // As the slots free up, the queued ones are claimed at once (no periodic sweep is run here).
      sms.letGo();
      await eventually(a.statuses, (s) => s.every((status) => status === 'sent'));
      expect(await a.statuses()).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
      expect(sms.sent.map((m) => m.reference).sort()).toEqual(a.deliveries.map((d) => d.id).sort());
    } finally {
      sms.letGo();
      await dispatcher.stop();
    }
  });

  it('a transaction that rolls back writes nothing and gives its slots back', async () => {
    const sms = heldSms(false);
    const dispatcher = started(sms, 3);
    try {
      const a = await alertFor(3);
      const refused = storeAlert(deps(dispatcher), a.alert, a.deliveries, a.now, async () => {
        throw new Error('the check-in moved');
      });
      await expect(refused).rejects.toThrow('the check-in moved');
      expect(await a.statuses()).toEqual([]);
      const again = dispatcher.claimAtWrite(3);
      expect(again.places).toBe(3);
      again.giveBack();
      // A stopped dispatcher lends no slot: the SMS are written queued for another to claim.
      await dispatcher.stop();
      expect(dispatcher.claimAtWrite(3).places).toBe(0);
    } finally {
      await dispatcher.stop();
    }
  });

  it('a claim waiting for the database holds back no transaction, and runs no more SMS than the places left', async () => {
    // Two SMS due, whose jobs the claim under way is about to find.
    const a = await alertFor(2);
    await insertAlert(t.app.db, a.alert, a.deliveries, { jobs: a.deliveries.map((d) => smsJob(d, a.now)) });
    const sms = heldSms();
    const statements = watchStatements();
    // Starting claims at once: the claim is waiting for the database as the transaction claims at write.
    const dispatcher = started(sms, 2);
    try {
      const during = dispatcher.claimAtWrite(2);
      expect(during.places).toBe(2);
      // The claim found both, but the two places are the transaction's: it sends neither, and gives them back.
      const jobs = () =>
        t.app.db
          .selectFrom('jobs')
          .select(['lease_token', 'attempts'])
          .where(
            'subject',
            'in',
            a.deliveries.map((d) => d.id),
          )
          .execute();
      // Claimed (leased) and given back (no lease, the attempt not counted).
      const givenBack = await eventually(
        async () => statements.seen.filter((seen) => seen.sql.includes('= attempts - 1')).length,
        (n) => n === 1,
      );
      expect(givenBack).toBe(1);
      statements.stop();
      expect(await jobs()).toEqual([
        { lease_token: null, attempts: 0 },
        { lease_token: null, attempts: 0 },
      ]);
      expect(sms.waiting()).toBe(0);
      // The transaction wrote nothing (rolled back): its places free, the two are sent, once each.
      during.giveBack();
      await eventually(
        async () => sms.waiting(),
        (n) => n === 2,
      );
      sms.letGo();
      await dispatcher.drain();
      expect(await a.statuses()).toEqual(['sent', 'sent']);
      expect(sms.sent.map((m) => m.reference).sort()).toEqual(a.deliveries.map((d) => d.id).sort());
    } finally {
      statements.stop();
      sms.letGo();
      await dispatcher.stop();
    }
  });

  it('stopped while an alert commits: its claimed SMS still go, and the stop waits for them', async () => {
    const sms = heldSms(false);
    const dispatcher = started(sms, 2);
    await dispatcher.drain();
    const a = await alertFor(2);
    // The slots are lent as storeAlert is called; the shutdown comes while it commits.
    const storing = storeAlert(deps(dispatcher), a.alert, a.deliveries, a.now);
    const stopping = dispatcher.stop();
    expect((await storing).created).toBe(true);
    await stopping;
    expect(await a.statuses()).toEqual(['sent', 'sent']);
    expect(sms.sent.map((m) => m.reference).sort()).toEqual(a.deliveries.map((d) => d.id).sort());
  });

  it('the process that wrote them claimed dies before sending: another takes them over when the lease ends, each once', async () => {
    const a = await alertFor(2);
    // The writing process commits and dies before its engine sends anything: its SMS were written leased to it.
    const writer = createDispatcher({ db: t.app.db, dialect: t.app.dialect, sms: heldSms().port, clock });
    const dying = (count: number): ClaimedAtWrite<'sms'> => {
      const taken = writer.claimAtWrite(count);
      return { places: taken.places, rows: taken.rows, run: async () => undefined, giveBack: () => undefined };
    };
    const stored = await storeAlert(deps({ kick: () => undefined, claimAtWrite: dying }), a.alert, a.deliveries, a.now);
    expect(stored.created && stored.deliveries.map((d) => d.status)).toEqual(['sending', 'sending']);

    const other = await secondConnection(t);
    const sms = heldSms(false);
    try {
      const survivor = createDispatcher({ db: other.db, dialect: other.dialect, sms: sms.port, clock });
      // Within the lease nobody else sends them.
      expect(await survivor.runOnce()).toBe(0);
      clock.advance(2 * MINUTE);
      expect(await survivor.runOnce()).toBe(2);
      expect(await a.statuses()).toEqual(['sent', 'sent']);
      expect(await survivor.runOnce()).toBe(0);
      expect(sms.sent.map((m) => m.reference).sort()).toEqual(a.deliveries.map((d) => d.id).sort());
    } finally {
      await other.close();
    }
  });
});
