import type { KyselyPlugin } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKOFF_JITTER, JOB_RETRY_MS } from '../../server/lib/reliability.js';
import { eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { secondServer } from './second-process.js';
import { watchStatements } from './statements-seen.js';

// In a regional disaster the servers' pools had no connection free in time for hundreds of the
// owners' e-mails about their alerts. The e-mail is a job set in the alert's own transaction: a
// database briefly unavailable delays it (the job engine's backoff), and a server that closes
// or dies leaves it to the next one; it goes once.

/** The next `times` writes of an e-mail burst fail as node-postgres fails with no pooled connection free in time. */
function poolTimeouts(times: number): KyselyPlugin & { failed(): number } {
  let failed = 0;
  return {
    transformQuery({ node }) {
      if (failed < times && node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'mail_bursts') {
        failed += 1;
        throw new Error('timeout exceeded when trying to connect');
      }
      return node;
    },
    transformResult: async ({ result }) => result,
    failed: () => failed,
  };
}

describe(`the owner's e-mail about an alert, with the database unavailable (${dbLabel})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is tried again after the backoff and sent once, after the alert and its SMS', async () => {
    const fault = poolTimeouts(1);
    t = await buildTestApp({}, undefined, { dbPlugins: [fault] });
    const app = t.app;
    const owner = await ownerWithContacts(app);
    expect((await postAlert(app, owner.token)).statusCode).toBe(201);
    await eventually(
      async () => app.outbox.sms.filter((sms) => sms.body.includes(owner.user.username)).length,
      (count) => count === 2,
    );
    await app.background.idle();
    expect(fault.failed()).toBe(1);
    const mails = () => app.outbox.emails.filter((mail) => mail.to === owner.user.email);
    expect(mails()).toHaveLength(0);
    // Not before its backoff (its least, with the jitter).
    t.clock.advance(JOB_RETRY_MS * (1 - BACKOFF_JITTER) - 1);
    await app.jobs.runDue();
    expect(mails()).toHaveLength(0);
    t.clock.advance(2 * BACKOFF_JITTER * JOB_RETRY_MS + 1);
    await app.jobs.runDue();
    await app.jobs.runDue();
    expect(mails()).toHaveLength(1);
    expect(mails()[0]?.text).toContain('/api/users/not-me/');
  });

  it('leaves the e-mail to the next server when this one closes while the database is unavailable', async () => {
    const fault = poolTimeouts(Number.POSITIVE_INFINITY);
    t = await buildTestApp({}, undefined, { dbPlugins: [fault] });
    const owner = await ownerWithContacts(t.app);
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
    await t.app.background.idle();
    expect(fault.failed()).toBeGreaterThan(0);
    const closing = Date.now();
    await t.app.close();
    // Nothing waits for a retry.
    expect(Date.now() - closing).toBeLessThan(JOB_RETRY_MS);
    const next = await secondServer(t);
    try {
      await next.app.ready();
      t.clock.advance(JOB_RETRY_MS * (1 + BACKOFF_JITTER));
      await next.app.jobs.runDue();
      expect(next.app.outbox.emails.filter((mail) => mail.to === owner.user.email)).toHaveLength(1);
    } finally {
      await next.close();
    }
  });
});

describe(`the owner's e-mail about an alert, run by the process that stored it (${dbLabel})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is written from the alert, the owner and the deliveries as the alert was stored, none read back', async () => {
    t = await buildTestApp();
    const app = t.app;
    const owner = await ownerWithContacts(app);
    const watched = watchStatements();
    try {
      expect((await postAlert(app, owner.token)).statusCode).toBe(201);
      await eventually(
        async () => app.outbox.emails.filter((mail) => mail.to === owner.user.email).length,
        (count) => count === 1,
      );
      await app.background.idle();
    } finally {
      watched.stop();
    }
    const mail = app.outbox.emails.find((sent) => sent.to === owner.user.email);
    expect(mail?.text).toContain('/api/users/not-me/');
    expect(mail?.text).toContain('Ana Silva');
    // The alert, its owner and its deliveries are read by id only by a run that was not handed them.
    const readBack = watched.seen.filter((statement) =>
      /^select \* from "(alerts|users)" where "id" = |from "deliveries" where "alert_id" in/i.test(
        statement.sql.trim(),
      ),
    );
    expect(readBack.map((statement) => statement.sql)).toEqual([]);
  });
});
