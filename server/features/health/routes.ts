import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { healthApi } from '../../../common/api/health.js';
import { served } from '../../../common/api/shared.js';
import { pingDatabase } from '../../db/index.js';

/**
 * `GET /api/health`: 200 with the database reachable; 503 when it is not, as an error (with its
 * code) that still says `status`, `db` and `version` for monitors.
 */
export default async function healthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(healthApi.get),
    handler: async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const version = app.appVersion;
      if (await pingDatabase(app.db)) return reply.code(200).send({ status: 'ok', db: 'ok', version });
      return reply.code(503).send({
        detail: 'The database cannot be reached.',
        code: 'unavailable',
        status: 'unavailable',
        db: 'unreachable',
        version,
      });
    },
  });
}
