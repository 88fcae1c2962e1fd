import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import voiceRoutes from './routes.js';
import { ESCALATION_TIMER, escalationTimer } from './service.js';

/** Escalation by phone: the timer each real alert sets, and the voice provider's callbacks. */
export default fp(
  async function escalation(app: FastifyInstance) {
    app.timers.on(ESCALATION_TIMER, escalationTimer(app));
    await app.register(voiceRoutes);
  },
  { name: 'escalation', dependencies: ['alerts'] },
);
