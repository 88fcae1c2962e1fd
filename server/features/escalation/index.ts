import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CALL_MAX_ATTEMPTS } from '../../lib/reliability.js';
import { CALL_JOB, placementJob } from './placement.js';
import voiceRoutes from './routes.js';
import { ESCALATION_TIMER, escalationTimer } from './service.js';

export { pressKeys } from './calls.js';
export { callsOf, settleEscalation } from './repository.js';
export { ESCALATION_TIMER, escalationAt } from './service.js';
export { escalationView } from './views.js';

/** Escalation by phone: the timer each real alert sets, the job placing each call, and the voice provider's callbacks. */
export default fp(
  async function escalation(app: FastifyInstance) {
    app.timers.on(ESCALATION_TIMER, escalationTimer(app));
    app.timers.on(CALL_JOB, placementJob(app), { maxAttempts: CALL_MAX_ATTEMPTS });
    await app.register(voiceRoutes);
  },
  { name: 'escalation', dependencies: ['alerts'] },
);
