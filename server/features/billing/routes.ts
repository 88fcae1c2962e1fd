import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { billingApi } from '../../../common/api/billing.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { openPortal, startCheckout } from './checkout.js';
import devBillingRoutes from './dev-routes.js';
import { changePlan } from './plan-change.js';
import { reportPendingUsage } from './usage.js';
import { receiveWebhook } from './webhook.js';

/** Checkout, plan change, portal and webhook under `/api/billing/`; the simulated pages when payments are simulated. */
export default async function billingRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const options = { onRequest: app.authenticate, config: { rateLimit: limit(app, { max: 20, timeWindow: MINUTE }) } };

  app.route({
    ...served(billingApi.checkout),
    ...options,
    handler: async (request) => startCheckout(app, request.user, request.body.plan),
  });

  // A subscriber's move to the other plan, from the pricing page.
  app.route({
    ...served(billingApi.changePlan),
    ...options,
    handler: async (request) => changePlan(app, request.user, request.body.plan),
  });

  app.route({ ...served(billingApi.portal), ...options, handler: async (request) => openPortal(app, request.user.id) });

  await app.register(webhookRoutes);
  if (app.payments.name === 'simulated') await app.register(devBillingRoutes);
  // SMS usage to the provider's meter every minute, once across processes, catching up after failures and restarts.
  else app.jobs.every('sms-usage-report', () => reportPendingUsage(app.db, app.payments, app.clock.now()));
}

/**
 * `POST /api/billing/webhook/`: the signature is checked on the raw bytes, so this
 * encapsulated context keeps the body as a Buffer instead of parsing JSON (and the route has
 * no body schema: the event is read only once verified).
 */
async function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.route({
    ...served(billingApi.webhook),
    bodyLimit: 1024 * 1024,
    handler: async (request) => {
      const signature = request.headers['stripe-signature'];
      return receiveWebhook(app, request.body, typeof signature === 'string' ? signature : undefined);
    },
  });
}
