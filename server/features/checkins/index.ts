import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import checkinRoutes from './routes.js';
import { CHECKIN_TIMER, checkinTimer } from './timer.js';

/** Check-ins: the emergency page's endpoints and the timer that holds each check-in. */
export default fp(
  async function checkins(app: FastifyInstance) {
    app.timers.on(CHECKIN_TIMER, checkinTimer(app));
    await app.register(checkinRoutes);
  },
  { name: 'checkins', dependencies: ['alerts'] },
);
