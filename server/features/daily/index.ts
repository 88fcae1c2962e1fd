import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import dailyMailLinkRoutes from './mail-link-routes.js';
import dailyRoutes from './routes.js';
import { DAILY_TIMER } from './schedule.js';
import { DAILY_REMINDER, dailyTimer } from './timer.js';

/** The daily check-in: the owner's schedule, "I'm OK today", the e-mail's link, and each owner's timer. */
export default fp(
  async function daily(app: FastifyInstance) {
    const { timer, reminder } = dailyTimer(app);
    app.timers.on(DAILY_TIMER, timer);
    app.timers.on(DAILY_REMINDER, reminder);
    await app.register(dailyRoutes);
    await app.register(dailyMailLinkRoutes);
  },
  { name: 'daily', dependencies: ['alerts'] },
);
