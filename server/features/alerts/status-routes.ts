import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { providerCallback } from '../../lib/provider-callback.js';
import { applyProviderStatus } from './deliveries-repository.js';

export default async function smsStatusRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const callbacks = app.sms.statusCallbacks;
  // Form bodies only inside this plugin: the rest of the API stays JSON.
  await app.register(formbody);

  app.route({
    ...served(alertsApi.smsStatus),
    ...providerCallback(app, callbacks),
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
