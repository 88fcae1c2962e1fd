import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { checkinJobs } from './jobs.js';
import { pinLockJob } from './pins.js';
import { reminderSummaryMail } from './reminder.js';
import checkinRoutes from './routes.js';

export { pushToOwner } from './push.js';

/** Check-ins: the emergency page's endpoints, the job that holds each check-in, and the PIN lock's e-mail. */
export default fp(
  async function checkins(app: FastifyInstance) {
    const { checkin, reminder } = checkinJobs(app);
    app.jobs.handle('checkin', checkin);
    app.jobs.handle('checkin-reminder', reminder);
    app.jobs.handle('checkin-pin-lock', pinLockJob(app));
    app.summaryMails.add('checkin_reminder', (user, count, since) =>
      reminderSummaryMail(app.config.APP_URL, user, count, since),
    );
    await app.register(checkinRoutes);
  },
  { name: 'checkins', dependencies: ['alerts'] },
);
