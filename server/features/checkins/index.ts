import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PIN_LOCK_TIMER, pinLockTimer } from './pins.js';
import checkinRoutes from './routes.js';
import { CHECKIN_REMINDER, CHECKIN_TIMER, checkinTimer } from './timer.js';

export { pushToOwner } from './push.js';
export { reminderSummaryMail } from './reminder.js';

/** Check-ins: the emergency page's endpoints, the timer that holds each check-in, and the PIN lock's e-mail. */
export default fp(
  async function checkins(app: FastifyInstance) {
    const { timer, reminder } = checkinTimer(app);
    app.timers.on(CHECKIN_TIMER, timer);
    app.timers.on(CHECKIN_REMINDER, reminder);
    app.timers.on(PIN_LOCK_TIMER, pinLockTimer(app));
    await app.register(checkinRoutes);
  },
  { name: 'checkins', dependencies: ['alerts'] },
);
