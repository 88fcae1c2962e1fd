import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { dailyJobs } from './jobs.js';
import dailyMailLinkRoutes from './mail-link-routes.js';
import dailyRoutes from './routes.js';

/** The daily check-in: the owner's schedule, "I'm OK today", the e-mail's link, and each owner's job. */
export default fp(
  async function daily(app: FastifyInstance) {
    const { daily, reminder } = dailyJobs(app);
    app.jobs.handle('daily', daily);
    app.jobs.handle('daily-reminder', reminder);
    await app.register(dailyRoutes);
    await app.register(dailyMailLinkRoutes);
  },
  { name: 'daily', dependencies: ['alerts'] },
);
