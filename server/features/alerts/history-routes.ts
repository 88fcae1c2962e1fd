import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { alertHistory } from './service.js';

/** `GET /api/emergency/alerts/`: the owner's alerts, newest first, with each delivery's status. */
export default async function alertHistoryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(alertsApi.history),
    onRequest: app.authenticate,
    handler: async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await alertHistory(app, request.user)),
  });
}
