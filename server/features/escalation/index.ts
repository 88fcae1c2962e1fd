import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { placementJob } from './placement.js';
import voiceRoutes from './routes.js';
import { escalationJob } from './service.js';

export { pressKeys } from './calls.js';
export { callsOf, settleEscalation } from './repository.js';
export { escalationAt } from './service.js';
export { escalationView } from './views.js';

/** Escalation by phone: the job each real alert sets, the job placing each call, and the voice provider's callbacks. */
export default fp(
  async function escalation(app: FastifyInstance) {
    app.jobs.handle('escalation', escalationJob(app));
    app.jobs.handle('escalation-call', placementJob(app));
    await app.register(voiceRoutes);
  },
  { name: 'escalation', dependencies: ['alerts'] },
);
