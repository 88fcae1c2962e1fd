import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activateSubscription,
  currentSubscription,
  subscriptionProfile,
} from '../../server/features/billing/subscriptions.js';
import { buildTestApp, createUser, dbLabel, NO_SUBSCRIPTION, PREMIUM_TRIAL, type TestApp } from './helper.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`subscription state (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const profile = async (userId: string) => {
    const user = await t.app.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    return subscriptionProfile(t.app.db, user, t.clock.now(), t.config);
  };

  it('has no plan, no token and no trial before any subscription', async () => {
    const { user } = await createUser(t.app);
    expect(await profile(user.id)).toEqual(NO_SUBSCRIPTION);
  });

  it('counts trial days down, renews into premium, and issues a token once', async () => {
    const { user } = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: user.id, plan: 'premium', now: t.clock.now(), trialDays: 3 });
    expect(await profile(user.id)).toMatchObject({ ...PREMIUM_TRIAL, contact_limit: 10, gps_enabled: true });
    t.clock.advance(DAY + 1);
    expect((await profile(user.id)).trial_days_left).toBe(2);
    t.clock.advance(2 * DAY);
    expect(await profile(user.id)).toMatchObject({ has_premium: true, is_in_trial: false, plan: 'premium' });
    const row = await t.app.db.selectFrom('users').select('token').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('ends a cancelled trial at its end: trial ended', async () => {
    const { user } = await createUser(t.app);
    const sub = await activateSubscription(t.app.db, {
      userId: user.id,
      plan: 'premium',
      now: t.clock.now(),
      trialDays: 3,
    });
    await t.app.db.updateTable('subscriptions').set({ cancel_at_period_end: 1 }).where('id', '=', sub.id).execute();
    t.clock.advance(3 * DAY);
    const p = await profile(user.id);
    expect(p).toMatchObject({ has_premium: false, is_in_trial: false, has_used_trial: true, plan: null });
    expect(p.trial_start).not.toBeNull();
    expect(await currentSubscription(t.app.db, user.id, t.clock.now())).toMatchObject({ id: sub.id });
  });

  it('gives basic three contacts and no GPS', async () => {
    const { user } = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: user.id, plan: 'basic', now: t.clock.now() });
    expect(await profile(user.id)).toMatchObject({
      has_premium: true,
      is_in_trial: false,
      plan: 'basic',
      contact_limit: 3,
      gps_enabled: false,
      has_used_trial: false,
    });
  });
});
