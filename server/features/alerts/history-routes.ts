import type { FastifyInstance } from 'fastify';
import { ownerAlerts } from './repository.js';

/** How many alerts the history shows. */
const HISTORY_LIMIT = 100;

/** `GET /api/emergency/alerts/`: the owner's alerts, newest first, with each delivery's status. */
export default async function alertHistoryRoutes(app: FastifyInstance) {
  app.get('/api/emergency/alerts/', { onRequest: app.authenticate }, async (request, reply) => {
    const alerts = await ownerAlerts(app.db, request.user.id, HISTORY_LIMIT);
    return reply.header('cache-control', 'no-store').send(alerts);
  });
}
