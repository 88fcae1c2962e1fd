import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AlertRequest } from '../../common/api/alerts.js';
import { alertingOwner } from '../../server/features/alerts/alerting-owner.js';
import { queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { type SendAlertDeps, sendAlert, storeAlert } from '../../server/features/alerts/service.js';
import { throttled } from '../../server/plugins/security.js';
import { alertRow, alertsOf, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

// The alert service takes its dependencies as values: no Fastify app and no request. What
// it charges to the test limit, what it wakes and what it stores are seen here directly.

describe(`sending an alert with its dependencies given (${dbLabel})`, () => {
  const t = suiteApp();

  /**
   * The app's database and ports, with a test limit and a dispatcher that only record their
   * calls: the dispatcher has one free slot, and `handed` lists, per stored alert, the SMS it
   * was handed written claimed and how many were left queued.
   */
  function sendingDeps(limit: (token: string) => Promise<void> = async () => {}) {
    const charged: string[] = [];
    const handed: { claimed: number; queued: number }[] = [];
    const deps: SendAlertDeps = {
      db: t.app.db,
      dialect: t.app.dialect,
      clock: t.clock,
      config: t.app.config,
      dispatcher: {
        kick: () => undefined,
        claimAtWrite: (count) => {
          let written: string[] = [];
          return {
            places: Math.min(count, 1),
            // The first job leased for a minute to a process of this test's, which never runs it.
            rows: (subjects, now) => {
              written = subjects;
              return subjects.map((subject, i) => ({
                ...smsJob({ id: subject }, now),
                ...(i === 0 ? { lease: { until: now + 60_000, token: 'this-test' } } : {}),
              }));
            },
            run: async (fromWriter) => {
              const claimed = written.filter((subject) => fromWriter?.(subject) !== undefined).length;
              handed.push({ claimed, queued: written.length - claimed });
            },
            giveBack: () => undefined,
          };
        },
      },
      background: t.app.background,
      jobs: t.app.jobs,
      mail: t.app.mail,
      log: t.app.log,
      tokens: t.app.tokens,
      chargeTestLimit: async (token) => {
        charged.push(token);
        await limit(token);
      },
    };
    return { deps, charged, handed };
  }

  const test: AlertRequest = { mode: 'test', location: null };
  const real: AlertRequest = { mode: 'real', location: null };

  it('charges a link-only test alert to the token it came by, and nothing else', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Ana', '+351964100001']] });
    const { deps, charged, handed } = sendingDeps();
    // The owner as the route reads them for each request: with the alert its key already made.
    const send = async (key: string, body: AlertRequest, proven?: boolean) =>
      sendAlert(deps, await alertingOwner(t.app, owner.token, key), { token: owner.token, key, body, proven });
    const key = randomUUID();

    const first = await send(key, test);
    expect(first.created).toBe(true);
    expect(charged).toEqual([owner.token]);
    expect(handed).toEqual([{ claimed: 1, queued: 0 }]);

    // A replay, the owner's proven test and a real alert are never charged.
    expect((await send(key, test)).created).toBe(false);
    await send(randomUUID(), test, true);
    await send(randomUUID(), real);
    expect(charged).toEqual([owner.token]);
    expect(handed).toHaveLength(3);
  });

  it('stores nothing when the test limit refuses', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Rui', '+351964100002']] });
    const { deps, handed } = sendingDeps(async () => {
      throw throttled(60);
    });
    const key = randomUUID();
    const sent = sendAlert(deps, await alertingOwner(t.app, owner.token, key), { token: owner.token, key, body: test });
    await expect(sent).rejects.toMatchObject({ statusCode: 429 });
    expect(await alertsOf(t.app, owner.user.id)).toHaveLength(0);
    expect(handed).toEqual([]);
  });

  it('answers the alert that won its key when a second one loses the unique index, and keeps none of its deliveries', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351964100003']] });
    const now = t.clock.now();
    const key = randomUUID();
    const delivery = (alertId: string) =>
      queuedDelivery({ alertId, recipient: { contact_name: 'Ana', phone_number: '+351964100003' }, body: 'help', now });
    const winner = alertRow(owner.user.id, { idempotency_key: key, created_at: now });
    const loser = alertRow(owner.user.id, { idempotency_key: key, created_at: now });

    expect(await storeAlert(t.app, winner, [delivery(winner.id)], now)).toMatchObject({
      created: true,
      alert: { id: winner.id },
    });
    expect(await storeAlert(t.app, loser, [delivery(loser.id)], now)).toMatchObject({
      created: false,
      alert: { id: winner.id },
    });
    const stored = await t.app.db
      .selectFrom('deliveries')
      .select('alert_id')
      .where('alert_id', '=', loser.id)
      .execute();
    expect(stored).toEqual([]);
  });
});
