import type { KyselyPlugin } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { RECEIPT_RETRY_MS } from '../../server/features/alerts/owner-mail.js';
import { eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

// In a regional disaster the servers' pools had no connection free in time for hundreds of the
// owners' e-mails about their alerts: each was logged and given up, though its alert and SMS
// went. The receipt is tried again while the database is unavailable, and a closing server does
// not wait for the next try.

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

  it('is tried again and sent once, after the alert and its SMS', async () => {
    const fault = poolTimeouts(1);
    t = await buildTestApp({}, undefined, { dbPlugins: [fault] });
    const app = t.app;
    const owner = await ownerWithContacts(app);
    const started = Date.now();
    expect((await postAlert(app, owner.token)).statusCode).toBe(201);
    await eventually(
      async () => app.outbox.sms.filter((sms) => sms.body.includes(owner.user.username)).length,
      (count) => count === 2,
    );
    await eventually(
      async () => fault.failed(),
      (count) => count === 1,
    );
    const mails = () => app.outbox.emails.filter((mail) => mail.to === owner.user.email);
    expect(mails()).toHaveLength(0);
    await eventually(
      async () => mails().length,
      (count) => count > 0,
      RECEIPT_RETRY_MS[0] + 5_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(RECEIPT_RETRY_MS[0]);
    await app.background.idle();
    expect(mails()).toHaveLength(1);
    expect(mails()[0]?.text).toContain('/api/users/not-me/');
  });

  it('gives up when the server closes, without holding the shutdown for the next try', async () => {
    const fault = poolTimeouts(Number.POSITIVE_INFINITY);
    t = await buildTestApp({}, undefined, { dbPlugins: [fault] });
    const owner = await ownerWithContacts(t.app);
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
    await eventually(
      async () => t?.app.outbox.sms.filter((sms) => sms.body.includes(owner.user.username)).length ?? 0,
      (count) => count === 2,
    );
    await eventually(
      async () => fault.failed(),
      (count) => count === 1,
    );
    const closing = Date.now();
    await t.close();
    t = undefined;
    // The waits before the next tries add up to more than a minute; the second alone is 5 s.
    expect(Date.now() - closing).toBeLessThan(RECEIPT_RETRY_MS[1]);
  });
});
