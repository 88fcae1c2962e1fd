import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import dailyMailLinkRoutes from './mail-link-routes.js';
import dailyRoutes from './routes.js';
import { DAILY_TIMER } from './schedule.js';
import { dailyTimer } from './timer.js';

/** The daily check-in: the owner's schedule, "I'm OK today", the e-mail's link, and each owner's timer. */
export default fp(
  async function daily(app: FastifyInstance) {
    app.timers.on(DAILY_TIMER, dailyTimer(app));
    await app.register(dailyRoutes);
    await app.register(dailyMailLinkRoutes);
  },
  { name: 'daily', dependencies: ['alerts'] },
);
