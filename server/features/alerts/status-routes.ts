import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { detailError, notFound } from '../../lib/errors.js';
import { applyProviderStatus } from './deliveries.js';

/**
 * The hooks of a route the SMS provider posts to (status callbacks, inbound SMS): 404 when the
 * adapter takes no callbacks (the dev outbox), and 403 unless the provider's signature checks
 * against the URL it was given (APP_URL + path and query) and the form as sent, before the form
 * is validated or read.
 */
export function providerCallback(app: FastifyInstance) {
  const callbacks = app.sms.statusCallbacks;
  return {
    onRequest: async () => {
      if (!callbacks) throw notFound();
    },
    preValidation: async (request: FastifyRequest) => {
      const url = `${app.config.APP_URL}${request.url}`;
      const form = (request.body ?? {}) as Record<string, string>;
      if (!callbacks?.verify({ url, headers: request.headers, form })) {
        throw detailError(403, 'Invalid Twilio signature.', 'invalid_signature');
      }
    },
  };
}

/**
 * `POST /api/sms/status/`: the SMS provider's status callback, answered only when its adapter
 * takes callbacks (Twilio). The adapter checks the signature against the URL the provider was
 * given (APP_URL + path and query) and the form fields as sent, before the form is validated
 * or read.
 */
export default async function smsStatusRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const callbacks = app.sms.statusCallbacks;
  // Form bodies only inside this plugin: the rest of the API stays JSON.
  await app.register(formbody);

  app.route({
    ...served(alertsApi.smsStatus),
    ...providerCallback(app),
    handler: async (request, reply) => {
      const report = callbacks?.read(request.body);
      if (report) {
        const deliveryId = request.query.d;
        await applyProviderStatus(app.db, { ...(deliveryId ? { deliveryId } : {}), ...report, now: app.clock.now() });
      }
      return reply.code(204).send();
    },
  });
}
