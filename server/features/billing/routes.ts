import type { FastifyInstance } from 'fastify';
import { ApiError, detailError } from '../../lib/errors.js';
import { limit } from '../../plugins/security.js';
import { WebhookError } from '../../providers/payments/port.js';
import { billingError, customerIdOf, startCheckout } from './checkout.js';
import devBillingRoutes from './dev-routes.js';
import { changePlan } from './plan-change.js';
import { currentSubscription } from './subscriptions.js';
import { applyWebhookEvent } from './sync.js';
import { reportPendingUsage } from './usage.js';

const MINUTE = 60 * 1000;
const PLANS = ['basic', 'premium'] as const;

/** The `plan` of a body: basic or premium, else a 400. */
function planOf(body: unknown): (typeof PLANS)[number] {
  const plan = (body as { plan?: unknown } | undefined)?.plan;
  if (PLANS.includes(plan as (typeof PLANS)[number])) return plan as (typeof PLANS)[number];
  const text = 'Choose a plan: basic or premium.';
  throw new ApiError(400, { error: text, plan: [text], code: 'invalid_plan' });
}

/** Checkout, plan change, portal and webhook under `/api/billing/`; the simulated pages when payments are simulated. */
export default async function billingRoutes(app: FastifyInstance) {
  app.post(
    '/api/billing/checkout/',
    { onRequest: app.authenticate, config: { rateLimit: limit(app, { max: 20, timeWindow: MINUTE }) } },
    async (request) => {
      return startCheckout(app, request.user, planOf(request.body));
    },
  );

  // A subscriber's move to the other plan, from the pricing page.
  app.post(
    '/api/billing/plan/',
    { onRequest: app.authenticate, config: { rateLimit: limit(app, { max: 20, timeWindow: MINUTE }) } },
    async (request) => changePlan(app, request.user, planOf(request.body)),
  );

  app.post(
    '/api/billing/portal/',
    { onRequest: app.authenticate, config: { rateLimit: limit(app, { max: 20, timeWindow: MINUTE }) } },
    async (request) => {
      const userId = request.user.id;
      const subscription = await currentSubscription(app.db, userId, app.clock.now());
      const customerId = await customerIdOf(app, userId);
      if (!subscription || (app.payments.name !== 'simulated' && !customerId)) {
        throw billingError(400, 'You have no subscription to manage yet.', 'no_subscription');
      }
      try {
        return await app.payments.createPortal({ userId, customerId });
      } catch (error) {
        request.log.error({ err: error }, 'payment provider refused the portal');
        throw billingError(502, 'The payment service is unavailable. Please try again.', 'payment_provider_error');
      }
    },
  );

  await app.register(webhookRoutes);
  if (app.payments.name === 'simulated') await app.register(devBillingRoutes);
  else startUsageReporting(app);
}

/**
 * `POST /api/billing/webhook/`: the signature is checked on the raw bytes, so this
 * encapsulated context keeps the body as a Buffer instead of parsing JSON.
 */
async function webhookRoutes(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.post('/api/billing/webhook/', { bodyLimit: 1024 * 1024 }, async (request) => {
    const raw = request.body;
    if (!Buffer.isBuffer(raw) || raw.length === 0) throw detailError(400, 'Empty webhook body.', 'invalid_payload');
    const signature = request.headers['stripe-signature'];
    let webhook: ReturnType<typeof app.payments.verifyWebhook>;
    try {
      webhook = app.payments.verifyWebhook(raw, typeof signature === 'string' ? signature : undefined);
    } catch (error) {
      if (error instanceof WebhookError) throw detailError(400, 'Invalid webhook signature.', 'invalid_signature');
      throw error;
    }
    const applied = await applyWebhookEvent(app, webhook);
    return { received: true, duplicate: !applied };
  });
}

/** Reports SMS usage to the provider's meter every minute, catching up after failures and restarts. */
function startUsageReporting(app: FastifyInstance) {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await reportPendingUsage(app.db, app.payments, app.clock.now());
    } catch (error) {
      app.log.warn({ err: error }, 'SMS usage report failed; will retry');
    } finally {
      running = false;
    }
  }, MINUTE);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
