import type { FastifyInstance } from 'fastify';
import { pingDatabase } from '../../db/index.js';

/** `GET /api/health`: 200 with the database reachable, 503 when it is not. */
export default async function healthRoutes(app: FastifyInstance) {
  app.get('/api/health', async (_request, reply) => {
    const ok = await pingDatabase(app.db);
    return reply
      .code(ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ok ? 'ok' : 'unavailable', db: ok ? 'ok' : 'unreachable', version: app.appVersion });
  });
}
