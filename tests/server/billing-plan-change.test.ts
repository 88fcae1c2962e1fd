import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionProfile } from '../../server/features/billing/subscriptions.js';
import { buildTestApp, createUser, dbLabel, type TestApp, type TestUser } from './helper.js';

describe(`plan changes from the pricing page, simulated provider (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const profile = async (user: TestUser) => {
    const row = await t.app.db.selectFrom('users').selectAll().where('id', '=', user.user.id).executeTakeFirstOrThrow();
    return subscriptionProfile(t.app.db, row, t.clock.now(), t.config);
  };
  const post = (user: TestUser, url: string, plan: unknown) =>
    t.app.inject({ method: 'POST', url, headers: user.headers, payload: { plan } });
  const subscribe = async (user: TestUser, plan: 'basic' | 'premium') => {
    const { url } = (await post(user, '/api/billing/checkout/', plan)).json() as { url: string };
    expect((await t.app.inject({ method: 'POST', url: `${url}/pay` })).statusCode).toBe(200);
  };

  it('upgrades basic → premium and downgrades back, at once, with the limits and GPS of each plan', async () => {
    const user = await createUser(t.app);
    await subscribe(user, 'basic');
    expect(await profile(user)).toMatchObject({ plan: 'basic', contact_limit: 3, gps_enabled: false });

    const up = await post(user, '/api/billing/plan/', 'premium');
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ plan: 'premium' });
    expect(await profile(user)).toMatchObject({
      has_premium: true,
      plan: 'premium',
      contact_limit: 10,
      gps_enabled: true,
    });
    // Still one subscription: a change, not a second checkout.
    const rows = await t.app.db.selectFrom('subscriptions').selectAll().where('user_id', '=', user.user.id).execute();
    expect(rows).toHaveLength(1);

    expect((await post(user, '/api/billing/plan/', 'basic')).json()).toEqual({ plan: 'basic' });
    expect(await profile(user)).toMatchObject({ plan: 'basic', contact_limit: 3 });
  });

  it('answers each refusal with a code the app translates', async () => {
    const user = await createUser(t.app);
    const none = await post(user, '/api/billing/plan/', 'premium');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({
      error: 'You have no subscription to change. Choose a plan first.',
      code: 'no_subscription',
    });
    await subscribe(user, 'premium');
    const same = await post(user, '/api/billing/plan/', 'premium');
    expect(same.json()).toEqual({ error: 'You are already on this plan.', code: 'same_plan' });
    expect((await post(user, '/api/billing/plan/', 'gold')).json()).toMatchObject({ code: 'invalid_plan' });
    // The trial in progress stays a trial on the other plan's price.
    expect((await post(user, '/api/billing/plan/', 'basic')).statusCode).toBe(200);
    expect(await profile(user)).toMatchObject({ is_in_trial: true, plan: 'basic' });
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/billing/plan/', payload: { plan: 'basic' } });
    expect(anonymous.statusCode).toBe(401);
  });
});
