import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { configApi } from '../../../common/api/config.js';
import { served } from '../../../common/api/shared.js';
import { publicConfig } from '../billing/index.js';

/** `GET /api/config/`: the prices, contact limits and trial length this server is configured with. */
export default async function configRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const answer = publicConfig(app.config);
  app.route({
    ...served(configApi.get),
    // The same for everyone and changed only by a restart: a few minutes' caching is harmless.
    handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(answer),
  });
}
