import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelAtProvider } from '../../server/features/billing/cancel.js';
import { subscriptionProfile } from '../../server/features/billing/subscriptions.js';
import { recordSmsUsage } from '../../server/features/billing/usage.js';
import { buildTestApp, createUser, dbLabel, PREMIUM_TRIAL, type TestApp, type TestUser } from './helper.js';

const DAY = 24 * 60 * 60 * 1000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe(`billing with the simulated provider (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const userRow = (id: string) =>
    t.app.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const profile = async (id: string) => subscriptionProfile(t.app.db, await userRow(id), t.clock.now(), t.config);
  /** Fresh auth headers: access tokens last 15 minutes and these tests move the clock by days. */
  const auth = async (user: TestUser) => ({
    authorization: `Bearer ${await t.app.tokens.signAccess(user.user.id, user.sessionId)}`,
  });
  const checkout = async (user: TestUser, plan: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/billing/checkout/', headers: await auth(user), payload: { plan } });
  /** Checks out and pays through the POST shortcut, as a script without a browser would. */
  const subscribe = async (user: TestUser, plan: 'basic' | 'premium') => {
    const { url } = (await checkout(user, plan)).json() as { url: string };
    const paid = await t.app.inject({ method: 'POST', url: `${url}/pay` });
    expect(paid.json()).toEqual({ status: 'paid', redirect: '/?checkout=success' });
    return url;
  };
  const openPortal = async (user: TestUser) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/billing/portal/', headers: await auth(user) });
    expect(res.statusCode).toBe(200);
    const url = (res.json() as { url: string }).url;
    expect(url).toMatch(/^\/dev\/portal\?session=[\w-]+$/);
    return { url, session: new URL(url, 'http://x').searchParams.get('session') ?? '' };
  };
  const portalAction = (session: string, action: string, extra = '') =>
    t.app.inject({
      method: 'POST',
      url: `/dev/portal/${action}`,
      headers: FORM,
      payload: `session=${session}${extra}`,
    });

  it('journey: premium checkout starts the 3-day trial and issues the token', async () => {
    const user = await createUser(t.app);
    const res = await checkout(user, 'premium');
    expect(res.statusCode).toBe(200);
    const { url } = res.json() as { url: string };
    expect(url).toMatch(/^\/dev\/checkout\/[\w-]+$/);
    const page = await t.app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="${url}/pay"`);
    expect(page.body).toContain(`action="${url}/cancel"`);
    expect(page.body).toContain('3-day free trial');
    expect(page.body).not.toMatch(/<script/i);

    const paid = await t.app.inject({ method: 'POST', url: `${url}/pay` });
    expect(paid.statusCode).toBe(200);
    expect(await profile(user.user.id)).toMatchObject({
      ...PREMIUM_TRIAL,
      trial_start: new Date(t.clock.now()).toISOString(),
    });
    expect((await userRow(user.user.id)).token).toMatch(/^[\w-]{32}$/);
    // Paying again changes nothing.
    expect((await t.app.inject({ method: 'POST', url: `${url}/pay` })).json()).toMatchObject({ status: 'paid' });
    const rows = await t.app.db.selectFrom('subscriptions').selectAll().where('user_id', '=', user.user.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('journey: basic checkout gives plan basic with no trial', async () => {
    const user = await createUser(t.app);
    await subscribe(user, 'basic');
    expect(await profile(user.user.id)).toMatchObject({
      has_premium: true,
      is_in_trial: false,
      trial_days_left: 0,
      has_used_trial: false,
      trial_start: null,
      plan: 'basic',
      contact_limit: 3,
    });
    expect((await userRow(user.user.id)).token).not.toBeNull();
  });

  it('journey: a cancelled checkout leaves the profile untouched and cannot be paid', async () => {
    const user = await createUser(t.app);
    const before = await profile(user.user.id);
    const { url } = (await checkout(user, 'premium')).json() as { url: string };
    const cancelled = await t.app.inject({ method: 'POST', url: `${url}/cancel` });
    expect(cancelled.json()).toEqual({ status: 'canceled', redirect: '/cancel' });
    expect(await profile(user.user.id)).toEqual(before);
    expect((await userRow(user.user.id)).token).toBeNull();
    const late = await t.app.inject({ method: 'POST', url: `${url}/pay` });
    expect(late.statusCode).toBe(409);
    expect(await profile(user.user.id)).toEqual(before);
  });

  it('sends the browser to /?checkout=success after Pay and to /cancel after Cancel', async () => {
    const payer = await createUser(t.app);
    const payUrl = ((await checkout(payer, 'basic')).json() as { url: string }).url;
    const pay = await t.app.inject({ method: 'POST', url: `${payUrl}/pay`, headers: FORM, payload: '' });
    expect(pay.statusCode).toBe(303);
    expect(pay.headers.location).toBe('/?checkout=success');
    const quitter = await createUser(t.app);
    const cancelUrl = ((await checkout(quitter, 'basic')).json() as { url: string }).url;
    const cancel = await t.app.inject({ method: 'POST', url: `${cancelUrl}/cancel`, headers: FORM, payload: '' });
    expect(cancel.statusCode).toBe(303);
    expect(cancel.headers.location).toBe('/cancel');
    expect((await profile(quitter.user.id)).has_premium).toBe(false);
  });

  it('refuses a second subscription, unknown plans and anonymous callers', async () => {
    const user = await createUser(t.app);
    await subscribe(user, 'basic');
    const again = await checkout(user, 'premium');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({
      error: 'You already have an active subscription. Manage it from Setup.',
      code: 'already_subscribed',
    });
    const other = await createUser(t.app);
    const invalidPlan = {
      error: 'Choose a plan: basic or premium.',
      plan: ['Choose a plan: basic or premium.'],
      code: 'invalid_plan',
      codes: { plan: 'invalid_plan' },
    };
    const bad = await checkout(other, 'gold');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(invalidPlan);
    // No body, or one that is not an object: the same refusal.
    for (const payload of [undefined, ['premium']]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/billing/checkout/',
        headers: await auth(other),
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(invalidPlan);
    }
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/billing/checkout/', payload: { plan: 'basic' } });
    expect(anonymous.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/dev/checkout/nope/pay' })).statusCode).toBe(404);
  });

  it('pays only one of two checkouts opened side by side', async () => {
    const user = await createUser(t.app);
    const first = ((await checkout(user, 'premium')).json() as { url: string }).url;
    const second = ((await checkout(user, 'premium')).json() as { url: string }).url;
    expect((await t.app.inject({ method: 'POST', url: `${first}/pay` })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'POST', url: `${second}/pay` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'already_subscribed' });
    const rows = await t.app.db.selectFrom('subscriptions').selectAll().where('user_id', '=', user.user.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('walks the states of the home banner as time passes (trial active, premium, trial ended, inactive)', async () => {
    // Trial inactive: never started.
    const renewing = await createUser(t.app);
    expect(await profile(renewing.user.id)).toMatchObject({
      has_premium: false,
      trial_start: null,
      has_used_trial: false,
    });
    const ending = await createUser(t.app);
    await subscribe(renewing, 'premium');
    await subscribe(ending, 'premium');
    const { session } = await openPortal(ending);
    expect((await portalAction(session, 'cancel')).statusCode).toBe(303);

    // Trial active with days left.
    t.clock.advance(DAY + 60_000);
    expect(await profile(renewing.user.id)).toMatchObject({ has_premium: true, is_in_trial: true, trial_days_left: 2 });
    expect(await profile(ending.user.id)).toMatchObject({ has_premium: true, is_in_trial: true, trial_days_left: 2 });

    // After 3 days: the uncancelled trial renewed into paid premium; the cancelled one ended.
    t.clock.advance(2 * DAY);
    expect(await profile(renewing.user.id)).toMatchObject({
      has_premium: true,
      is_in_trial: false,
      trial_days_left: 0,
      plan: 'premium',
      has_used_trial: true,
    });
    const ended = await profile(ending.user.id);
    expect(ended).toMatchObject({ has_premium: false, is_in_trial: false, plan: null, has_used_trial: true });
    expect(ended.trial_start).not.toBeNull();
    // An ended trial cannot be resumed from the portal.
    const late = await portalAction((await openPortal(ending)).session, 'resume');
    expect(late.statusCode).toBe(400);
    expect(late.body).toContain('You have no subscription to manage.');
    expect((await profile(ending.user.id)).has_premium).toBe(false);

    // A second premium checkout after a trial never carries another trial.
    await subscribe(ending, 'premium');
    expect(await profile(ending.user.id)).toMatchObject({ has_premium: true, is_in_trial: false, plan: 'premium' });
  });

  it('portal: cancelling a renewed plan ends it at the end of the paid period, not at once', async () => {
    const user = await createUser(t.app);
    await subscribe(user, 'premium');
    t.clock.advance(10 * DAY); // trial over, 7 days into the first paid period
    const { url, session } = await openPortal(user);
    expect((await t.app.inject({ method: 'GET', url })).body).toContain('Renews on');
    await portalAction(session, 'cancel');
    expect((await profile(user.user.id)).has_premium).toBe(true);
    const page = await t.app.inject({ method: 'GET', url });
    expect(page.body).toContain('Ends on');
    expect(page.body).toContain('Keep my subscription');
    t.clock.advance(22 * DAY);
    expect((await profile(user.user.id)).has_premium).toBe(true);
    t.clock.advance(2 * DAY); // past day 33: end of the first paid period
    expect((await profile(user.user.id)).has_premium).toBe(false);
  });

  it('portal: shows plan and this period’s SMS, switches plan and resumes a cancellation', async () => {
    const user = await createUser(t.app);
    const none = await t.app.inject({ method: 'POST', url: '/api/billing/portal/', headers: user.headers });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'no_subscription' });
    await subscribe(user, 'basic');
    for (const deliveryId of ['d1', 'd2', 'd2']) {
      await recordSmsUsage(t.app.db, {
        userId: user.user.id,
        deliveryId: `${user.user.id}-${deliveryId}`,
        alertId: 'no-such-alert',
        now: t.clock.now(),
      });
    }
    const { url, session } = await openPortal(user);
    const page = await t.app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<strong>basic</strong>');
    expect(page.body).toContain('SMS this period: 2 × 0.08 € = 0.16 €');
    expect(page.body).not.toMatch(/<script/i);

    const switched = await portalAction(session, 'plan', '&plan=premium');
    expect(switched.statusCode).toBe(303);
    expect(switched.headers.location).toBe(url);
    expect(await profile(user.user.id)).toMatchObject({ plan: 'premium', contact_limit: 10, is_in_trial: false });
    await portalAction(session, 'cancel');
    await portalAction(session, 'resume');
    expect((await portalAction(session, 'bogus')).statusCode).toBe(400);
    t.clock.advance(40 * DAY);
    expect(await profile(user.user.id)).toMatchObject({ has_premium: true, plan: 'premium' });
    // Portal links are short-lived, like the provider's.
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/dev/portal?session=forged' })).statusCode).toBe(404);
  });

  it('account deletion cancels the subscription at the provider first', async () => {
    const user = await createUser(t.app);
    await subscribe(user, 'premium');
    await cancelAtProvider(t.app, user.user.id);
    expect((await profile(user.user.id)).has_premium).toBe(false);
    const rows = await t.app.db
      .selectFrom('subscriptions')
      .select('status')
      .where('user_id', '=', user.user.id)
      .execute();
    expect(rows.map((row) => row.status)).toEqual(['canceled']);
  });

  it('answers webhooks with 400 while payments are simulated', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/billing/webhook/',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{"id":"evt_1"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Invalid webhook signature.', code: 'invalid_signature' });
  });
});
