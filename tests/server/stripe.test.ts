import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cancelAtProvider } from '../../server/features/billing/cancel.js';
import { subscriptionProfile } from '../../server/features/billing/subscriptions.js';
import { recordSmsUsage, reportPendingUsage } from '../../server/features/billing/usage.js';
import type { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import { createStripePayments } from '../../server/providers/payments/stripe.js';
import { alertRow } from './alerts-fixtures.js';
import { buildTestApp, createUser, dbLabel, PREMIUM_TRIAL, type TestApp, type TestUser } from './helper.js';

const SECRET = 'whsec_test_secret';
const DAY = 24 * 60 * 60 * 1000;

interface Recorded {
  method: string;
  path: string;
  params: Record<string, string>;
}

/** A tiny stand-in for the Stripe HTTP API on loopback: records each call's form-encoded params. */
async function startFakeStripe() {
  const calls: Recorded[] = [];
  let failNext: { status: number; body: unknown } | undefined;
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => resolve(body));
    });
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // The SDK sends a DELETE's parameters in the query string, the others in the body.
    const params = {
      ...Object.fromEntries(url.searchParams),
      ...Object.fromEntries(new URLSearchParams(await read(request))),
    };
    calls.push({ method: request.method ?? '', path: url.pathname, params });
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${calls.length}` });
      response.end(JSON.stringify(body));
    };
    if (failNext) {
      const failure = failNext;
      failNext = undefined;
      return send(failure.status, failure.body);
    }
    if (url.pathname === '/v1/checkout/sessions') {
      const id = `cs_test_${calls.length}`;
      return send(200, { id, object: 'checkout.session', url: `https://checkout.stripe.test/c/pay/${id}` });
    }
    if (url.pathname === '/v1/billing_portal/sessions') {
      return send(200, {
        id: 'bps_1',
        object: 'billing_portal.session',
        url: 'https://billing.stripe.test/p/session/bps_1',
      });
    }
    if (url.pathname === '/v1/billing/meter_events') {
      return send(200, { object: 'billing.meter_event', ...params });
    }
    const cancel = /^\/v1\/subscriptions\/([\w]+)$/.exec(url.pathname);
    if (cancel && request.method === 'DELETE') {
      return send(200, { id: cancel[1], object: 'subscription', status: 'canceled' });
    }
    if (cancel && request.method === 'GET') {
      const items = [
        { id: 'si_plan', object: 'subscription_item', price: { id: 'price_basic', object: 'price' } },
        { id: 'si_sms', object: 'subscription_item', price: { id: 'price_sms', object: 'price' } },
      ];
      return send(200, { id: cancel[1], object: 'subscription', items: { object: 'list', data: items } });
    }
    if (cancel && request.method === 'POST') return send(200, { id: cancel[1], object: 'subscription' });
    return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such thing' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    fail(status: number, body: unknown) {
      failNext = { status, body };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`Stripe adapter against a local fake of the Stripe API (${dbLabel})`, () => {
  let stripeFake: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let app: FastifyInstance;
  let clock: ManualClock;
  const signer = new Stripe('sk_test_signer');

  beforeAll(async () => {
    stripeFake = await startFakeStripe();
    const env = {
      STRIPE_SECRET_KEY: 'sk_test_fake',
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_PRICE_BASIC: 'price_basic',
      STRIPE_PRICE_PREMIUM: 'price_premium',
      STRIPE_PRICE_SMS: 'price_sms',
      STRIPE_SMS_METER: 'alerta_sms',
    };
    t = await buildTestApp(env, undefined, {
      providers: (config) => ({
        payments: createStripePayments(config, { host: '127.0.0.1', port: stripeFake.port, protocol: 'http' }),
      }),
    });
    ({ app, clock } = t);
  });
  afterAll(async () => {
    await t.close();
    await stripeFake.close();
  });
  beforeEach(() => {
    stripeFake.calls.length = 0;
  });

  const profile = async (userId: string) => {
    const user = await app.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    return subscriptionProfile(app.db, user, clock.now(), app.config);
  };
  const subscriptionRows = (userId: string) =>
    app.db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).execute();
  const checkout = (user: TestUser, plan: string) =>
    app.inject({ method: 'POST', url: '/api/billing/checkout/', headers: user.headers, payload: { plan } });

  /** Posts a Stripe event signed with the webhook secret (or a wrong one). */
  const deliver = (event: Record<string, unknown>, secret = SECRET) => {
    const payload = JSON.stringify({ object: 'event', api_version: '2026-10-28', livemode: false, ...event });
    return app.inject({
      method: 'POST',
      url: '/api/billing/webhook/',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
      },
      payload,
    });
  };
  const seconds = (ms: number) => Math.floor(ms / 1000);
  /** A Stripe subscription object as the API of this SDK version shapes it. */
  const subscription = (id: string, userId: string, fields: Record<string, unknown> = {}) => ({
    id,
    object: 'subscription',
    customer: `cus_${userId.slice(0, 8)}`,
    status: 'active',
    metadata: { user_id: userId, plan: 'premium' },
    cancel_at_period_end: false,
    cancel_at: null,
    trial_start: null,
    trial_end: null,
    items: {
      object: 'list',
      data: [
        { id: 'si_plan', price: { id: 'price_premium' }, current_period_end: seconds(clock.now() + 30 * DAY) },
        { id: 'si_sms', price: { id: 'price_sms' }, current_period_end: seconds(clock.now() + 30 * DAY) },
      ],
    },
    ...fields,
  });
  const event = (id: string, type: string, object: unknown, created = seconds(clock.now())) => ({
    id,
    type,
    created,
    data: { object },
  });
  /** A `customer.subscription.<change>` event about the subscription `subscriptionId` of `userId`. */
  const subscriptionEvent = (
    id: string,
    change: 'created' | 'updated' | 'deleted',
    subscriptionId: string,
    userId: string,
    fields: Record<string, unknown> = {},
    created?: number,
  ) => event(id, `customer.subscription.${change}`, subscription(subscriptionId, userId, fields), created);

  it('opens a Checkout Session with the plan and metered SMS prices and the trial on the first premium', async () => {
    const user = await createUser(app);
    const res = await checkout(user, 'premium');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/) });
    expect(stripeFake.calls).toHaveLength(1);
    const [call] = stripeFake.calls;
    const row = await app.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('user_id', '=', user.user.id)
      .executeTakeFirstOrThrow();
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/v1/checkout/sessions');
    expect(call?.params).toEqual({
      mode: 'subscription',
      'line_items[0][price]': 'price_premium',
      'line_items[0][quantity]': '1',
      'line_items[1][price]': 'price_sms',
      'subscription_data[metadata][user_id]': user.user.id,
      'subscription_data[metadata][plan]': 'premium',
      'subscription_data[metadata][checkout_id]': row.id,
      'subscription_data[trial_period_days]': '3',
      payment_method_collection: 'always',
      client_reference_id: user.user.id,
      customer_email: user.user.email,
      'metadata[user_id]': user.user.id,
      'metadata[plan]': 'premium',
      'metadata[checkout_id]': row.id,
      success_url: 'http://alerta.test/?checkout=success',
      cancel_url: 'http://alerta.test/cancel',
    });
    expect(row).toMatchObject({ provider: 'stripe', plan: 'premium', with_trial: 1, status: 'open' });
    expect(row.provider_session_id).toMatch(/^cs_test_/);
  });

  it('gives no trial on basic, nor on premium once a trial was used', async () => {
    const user = await createUser(app);
    await checkout(user, 'basic');
    expect(stripeFake.calls[0]?.params['line_items[0][price]']).toBe('price_basic');
    expect(stripeFake.calls[0]?.params).not.toHaveProperty('subscription_data[trial_period_days]');
    await app.db.updateTable('users').set({ trial_used_at: clock.now() }).where('id', '=', user.user.id).execute();
    await checkout(user, 'premium');
    expect(stripeFake.calls[1]?.params['line_items[0][price]']).toBe('price_premium');
    expect(stripeFake.calls[1]?.params).not.toHaveProperty('subscription_data[trial_period_days]');
  });

  it('answers a clear 502 when Stripe refuses the checkout', async () => {
    const user = await createUser(app);
    stripeFake.fail(400, { error: { type: 'invalid_request_error', message: 'No such price' } });
    const res = await checkout(user, 'basic');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({
      error: 'The payment service is unavailable. Please try again.',
      code: 'payment_provider_error',
    });
  });

  it('activates on a signed checkout.session.completed, once, and refines from subscription events', async () => {
    const user = await createUser(app);
    await checkout(user, 'premium');
    const checkoutRow = await app.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('user_id', '=', user.user.id)
      .executeTakeFirstOrThrow();
    const completed = event('evt_cs_1', 'checkout.session.completed', {
      id: checkoutRow.provider_session_id,
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: user.user.id,
      customer: 'cus_journey',
      subscription: 'sub_journey',
      metadata: { user_id: user.user.id, plan: 'premium', checkout_id: checkoutRow.id },
    });
    const res = await deliver(completed);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, duplicate: false });
    expect(await profile(user.user.id)).toMatchObject(PREMIUM_TRIAL);
    const token = (
      await app.db.selectFrom('users').select('token').where('id', '=', user.user.id).executeTakeFirstOrThrow()
    ).token;
    expect(token).toMatch(/^[\w-]{32}$/);

    // The same event again changes nothing.
    const before = await subscriptionRows(user.user.id);
    const replay = await deliver(completed);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    expect(await subscriptionRows(user.user.id)).toEqual(before);

    // The subscription's own event then gives Stripe's exact trial end.
    const trialEnd = seconds(clock.now() + 3 * DAY);
    const created = subscription('sub_journey', user.user.id, {
      customer: 'cus_journey',
      status: 'trialing',
      trial_start: seconds(clock.now()),
      trial_end: trialEnd,
    });
    expect((await deliver(event('evt_sub_1', 'customer.subscription.created', created))).statusCode).toBe(200);
    const [row] = await subscriptionRows(user.user.id);
    expect(row).toMatchObject({ status: 'trialing', trial_end: trialEnd * 1000, provider_customer_id: 'cus_journey' });
    expect(
      await app.db.selectFrom('checkout_sessions').select('status').where('id', '=', checkoutRow.id).executeTakeFirst(),
    ).toEqual({ status: 'paid' });
  });

  it('rejects a bad signature with 400 and changes nothing', async () => {
    const user = await createUser(app);
    const forged = subscriptionEvent('evt_forged', 'created', 'sub_forged', user.user.id);
    const res = await deliver(forged, 'whsec_wrong');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Invalid webhook signature.', code: 'invalid_signature' });
    const unsigned = await app.inject({
      method: 'POST',
      url: '/api/billing/webhook/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(forged),
    });
    expect(unsigned.statusCode).toBe(400);
    // A body altered after signing fails too: the check is on the raw bytes.
    const payload = JSON.stringify({ object: 'event', ...forged });
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const tampered = await app.inject({
      method: 'POST',
      url: '/api/billing/webhook/',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      payload: payload.replace('"active"', '"trialing"'),
    });
    expect(tampered.statusCode).toBe(400);
    expect(await subscriptionRows(user.user.id)).toEqual([]);
    expect((await profile(user.user.id)).has_premium).toBe(false);
    const seen = await app.db.selectFrom('processed_events').select('id').where('id', '=', 'evt_forged').execute();
    expect(seen).toEqual([]);
  });

  it('keeps the newest state when events arrive out of order', async () => {
    const user = await createUser(app);
    const t0 = seconds(clock.now());
    // The update (active) arrives before the creation (trialing) that preceded it.
    await deliver(subscriptionEvent('evt_o2', 'updated', 'sub_order', user.user.id, {}, t0 + 10));
    await deliver(
      subscriptionEvent(
        'evt_o1',
        'created',
        'sub_order',
        user.user.id,
        { status: 'trialing', trial_start: t0, trial_end: t0 + 3 * 86400 },
        t0,
      ),
    );
    expect(await profile(user.user.id)).toMatchObject({ has_premium: true, is_in_trial: false, plan: 'premium' });
    // The checkout completion arriving last does not reset the subscription.
    await deliver(
      event(
        'evt_o0',
        'checkout.session.completed',
        {
          id: 'cs_x',
          object: 'checkout.session',
          mode: 'subscription',
          client_reference_id: user.user.id,
          subscription: 'sub_order',
          customer: 'cus_x',
        },
        t0 - 1,
      ),
    );
    expect((await subscriptionRows(user.user.id))[0]).toMatchObject({ status: 'active' });

    // Deleted, then a stale update from before the deletion: the plan stays stopped.
    await deliver(subscriptionEvent('evt_o4', 'deleted', 'sub_order', user.user.id, { status: 'canceled' }, t0 + 40));
    await deliver(subscriptionEvent('evt_o3', 'updated', 'sub_order', user.user.id, {}, t0 + 30));
    expect(await profile(user.user.id)).toMatchObject({ has_premium: false, plan: null });
    expect((await subscriptionRows(user.user.id))[0]).toMatchObject({ status: 'canceled' });
  });

  it('follows payment failure into past due, recovery, and the end Stripe decides (unpaid)', async () => {
    const user = await createUser(app);
    const t0 = seconds(clock.now());
    await deliver(subscriptionEvent('evt_p1', 'created', 'sub_pay', user.user.id, {}, t0));
    const invoice = (id: string) => ({
      id,
      object: 'invoice',
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_pay', metadata: {} } },
    });
    await deliver(event('evt_p2', 'invoice.payment_failed', invoice('in_1'), t0 + 10));
    expect((await subscriptionRows(user.user.id))[0]).toMatchObject({ status: 'past_due' });
    expect((await profile(user.user.id)).has_premium).toBe(true); // Stripe's grace period
    await deliver(event('evt_p3', 'invoice.paid', invoice('in_1'), t0 + 20));
    expect((await subscriptionRows(user.user.id))[0]).toMatchObject({ status: 'active' });
    await deliver(event('evt_p4', 'invoice.payment_failed', invoice('in_2'), t0 + 30));
    await deliver(subscriptionEvent('evt_p5', 'updated', 'sub_pay', user.user.id, { status: 'unpaid' }, t0 + 40));
    expect(await profile(user.user.id)).toMatchObject({ has_premium: false });
    // A late success for the earlier invoice does not bring it back.
    await deliver(event('evt_p6', 'invoice.paid', invoice('in_1'), t0 + 35));
    expect((await subscriptionRows(user.user.id))[0]).toMatchObject({ status: 'unpaid' });
  });

  it('takes the plan from the price, so a plan change in the portal counts, and honours cancel at period end', async () => {
    const user = await createUser(app);
    const t0 = seconds(clock.now());
    const basicItems = {
      object: 'list',
      data: [{ id: 'si_plan', price: { id: 'price_basic' }, current_period_end: t0 + 30 * 86400 }],
    };
    await deliver(subscriptionEvent('evt_c1', 'created', 'sub_change', user.user.id, {}, t0));
    await deliver(
      subscriptionEvent(
        'evt_c2',
        'updated',
        'sub_change',
        user.user.id,
        { items: basicItems, cancel_at_period_end: true },
        t0 + 5,
      ),
    );
    expect(await profile(user.user.id)).toMatchObject({ has_premium: true, plan: 'basic', contact_limit: 3 });
    clock.advance(31 * DAY);
    expect((await profile(user.user.id)).has_premium).toBe(false);
    clock.advance(-31 * DAY);
  });

  it('opens the Billing Portal for the customer with a return to /setup', async () => {
    const user = await createUser(app);
    const none = await app.inject({ method: 'POST', url: '/api/billing/portal/', headers: user.headers });
    expect(none.statusCode).toBe(400);
    await deliver(subscriptionEvent('evt_bp', 'created', 'sub_portal', user.user.id));
    const res = await app.inject({ method: 'POST', url: '/api/billing/portal/', headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: 'https://billing.stripe.test/p/session/bps_1' });
    expect(stripeFake.calls.at(-1)).toEqual({
      method: 'POST',
      path: '/v1/billing_portal/sessions',
      params: { customer: `cus_${user.user.id.slice(0, 8)}`, return_url: 'http://alerta.test/setup' },
    });
  });

  it('reports each billable SMS once as a meter event keyed by the delivery; the first real alert is free', async () => {
    const user = await createUser(app);
    await deliver(subscriptionEvent('evt_u', 'created', 'sub_usage', user.user.id));
    const first = alertRow(user.user.id, { created_at: clock.now() });
    const second = alertRow(user.user.id, { created_at: clock.now() + 1000 });
    await app.db.insertInto('alerts').values([first, second]).execute();
    const usage = (deliveryId: string, alertId: string) => ({
      userId: user.user.id,
      deliveryId,
      alertId,
      now: clock.now(),
    });

    await recordSmsUsage(app.db, usage(`free-${first.id}`, first.id), app.payments);
    await recordSmsUsage(app.db, usage(`paid-${second.id}`, second.id), app.payments);
    await recordSmsUsage(app.db, usage(`paid-${second.id}`, second.id), app.payments); // a retry
    const meterCalls = stripeFake.calls.filter((call) => call.path === '/v1/billing/meter_events');
    expect(meterCalls).toEqual([
      {
        method: 'POST',
        path: '/v1/billing/meter_events',
        params: {
          event_name: 'alerta_sms',
          'payload[stripe_customer_id]': `cus_${user.user.id.slice(0, 8)}`,
          'payload[value]': '1',
          identifier: `paid-${second.id}`,
          timestamp: String(seconds(clock.now())),
        },
      },
    ]);
    const rows = await app.db
      .selectFrom('usage_records')
      .select(['delivery_id', 'billable', 'reported_at'])
      .where('user_id', '=', user.user.id)
      .orderBy('billable')
      .execute();
    expect(rows).toEqual([
      { delivery_id: `free-${first.id}`, billable: 0, reported_at: null },
      { delivery_id: `paid-${second.id}`, billable: 1, reported_at: clock.now() },
    ]);

    // A row recorded without the reporter (or while Stripe was down) goes out with the next sweep.
    stripeFake.calls.length = 0;
    await recordSmsUsage(app.db, usage(`later-${second.id}`, second.id));
    expect(await reportPendingUsage(app.db, app.payments, clock.now())).toBe(1);
    expect(await reportPendingUsage(app.db, app.payments, clock.now())).toBe(0);
    expect(stripeFake.calls.map((call) => call.params.identifier)).toEqual([`later-${second.id}`]);
  });

  it('changes plan through a Stripe subscription update of the plan item, prorated', async () => {
    const user = await createUser(app);
    const basic = subscription('sub_switch', user.user.id, {
      metadata: { user_id: user.user.id, plan: 'basic' },
      items: {
        object: 'list',
        data: [{ id: 'si_plan', price: { id: 'price_basic' }, current_period_end: seconds(clock.now() + 30 * DAY) }],
      },
    });
    await deliver(event('evt_switch', 'customer.subscription.created', basic));
    expect((await profile(user.user.id)).plan).toBe('basic');
    stripeFake.calls.length = 0;
    const res = await app.inject({
      method: 'POST',
      url: '/api/billing/plan/',
      headers: user.headers,
      payload: { plan: 'premium' },
    });
    expect(res.json()).toEqual({ plan: 'premium' });
    expect(stripeFake.calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      'GET /v1/subscriptions/sub_switch',
      'POST /v1/subscriptions/sub_switch',
    ]);
    expect(stripeFake.calls[1]!.params).toMatchObject({
      'items[0][id]': 'si_plan',
      'items[0][price]': 'price_premium',
      proration_behavior: 'create_prorations',
    });
    expect((await profile(user.user.id)).plan).toBe('premium');

    // Stripe refusing leaves the plan as it was, with a code the app translates.
    stripeFake.fail(400, { error: { type: 'invalid_request_error', message: 'Nope' } });
    const refused = await app.inject({
      method: 'POST',
      url: '/api/billing/plan/',
      headers: user.headers,
      payload: { plan: 'basic' },
    });
    expect(refused.statusCode).toBe(502);
    expect(refused.json()).toMatchObject({ code: 'payment_provider_error' });
    expect((await profile(user.user.id)).plan).toBe('premium');
  });

  it('cancels at Stripe when the account is deleted, also when Stripe already removed it', async () => {
    const user = await createUser(app);
    await deliver(subscriptionEvent('evt_del', 'created', 'sub_gone', user.user.id));
    await cancelAtProvider(app, user.user.id);
    expect(stripeFake.calls.at(-1)).toMatchObject({ method: 'DELETE', path: '/v1/subscriptions/sub_gone' });
    expect((await profile(user.user.id)).has_premium).toBe(false);

    const other = await createUser(app);
    await deliver(subscriptionEvent('evt_del2', 'created', 'sub_missing', other.user.id));
    stripeFake.fail(404, {
      error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such subscription' },
    });
    await cancelAtProvider(app, other.user.id);
    expect((await subscriptionRows(other.user.id))[0]).toMatchObject({ status: 'canceled' });
  });
  it('deleting the account cancels at Stripe first, and keeps the account when Stripe refuses', async () => {
    const user = await createUser(app);
    await deliver(subscriptionEvent('evt_acct', 'created', 'sub_acct', user.user.id));
    stripeFake.fail(400, { error: { type: 'invalid_request_error', code: 'account_invalid', message: 'Nope' } });
    const refused = await app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: user.headers });
    expect(refused.statusCode).toBe(502);
    expect((await profile(user.user.id)).has_premium).toBe(true);

    stripeFake.calls.length = 0;
    const res = await app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: user.headers });
    expect(res.statusCode).toBe(204);
    expect(stripeFake.calls).toMatchObject([{ method: 'DELETE', path: '/v1/subscriptions/sub_acct' }]);
    expect(await app.db.selectFrom('users').select('id').where('id', '=', user.user.id).execute()).toEqual([]);
  });
  it('invoices the SMS used when the account goes: unreported SMS metered first, then cancelled with invoice_now', async () => {
    const user = await createUser(app);
    await deliver(subscriptionEvent('evt_inv', 'created', 'sub_inv', user.user.id));
    await app.db
      .insertInto('usage_records')
      .values({
        id: newId(),
        user_id: user.user.id,
        delivery_id: 'dlv_unreported',
        billable: 1,
        reported_at: null,
        created_at: clock.now(),
      })
      .execute();
    stripeFake.calls.length = 0;
    const res = await app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: user.headers });
    expect(res.statusCode).toBe(204);
    expect(stripeFake.calls).toMatchObject([
      { method: 'POST', path: '/v1/billing/meter_events', params: { identifier: 'dlv_unreported' } },
      { method: 'DELETE', path: '/v1/subscriptions/sub_inv', params: { invoice_now: 'true', prorate: 'true' } },
    ]);
  });
  it('leaves the SMS price out when none is configured, and meters nothing without a meter', async () => {
    const bare = createStripePayments(
      { ...app.config, STRIPE_PRICE_SMS: undefined, STRIPE_SMS_METER: undefined },
      { host: '127.0.0.1', port: stripeFake.port, protocol: 'http' },
    );
    await bare.createCheckout({
      checkoutId: 'chk_1',
      userId: 'user_1',
      email: null,
      plan: 'basic',
      trialDays: null,
      customerId: 'cus_known',
    });
    const params = stripeFake.calls[0]?.params ?? {};
    expect(Object.keys(params).filter((key) => key.startsWith('line_items'))).toEqual([
      'line_items[0][price]',
      'line_items[0][quantity]',
    ]);
    expect(params.customer).toBe('cus_known');
    expect(params).not.toHaveProperty('customer_email');
    expect(await bare.reportUsage({ deliveryId: 'd', customerId: 'cus_known', at: clock.now() })).toBe(false);
    expect(stripeFake.calls).toHaveLength(1);
  });
});
