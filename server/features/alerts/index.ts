import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { deviceKeyRoutes } from '../owner/index.js';
import { applyProviderStatus } from './deliveries-repository.js';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import alertHistoryRoutes from './history-routes.js';
import openAlertsRoutes from './open-alerts-routes.js';
import { mailOwnerAboutAlert, type OwnerMailWritten, ownerSummaryMail } from './owner-mail.js';
import alertRoutes from './routes.js';
import smsStatusRoutes from './status-routes.js';

// What other features use of the alerts: the alert rows, the SMS queued within the budgets (an
// all-clear, an escalation's), the alarms the server raises for the owner, and the open alerts.
export { queueAllClear, queueWithinBudgets } from './all-clear.js';
export { openAlertRows } from './open-alerts.js';
export {
  alertById,
  alertOfUser,
  deliveriesOf,
  forgetPositionsBefore,
  markResolved,
  numbersReached,
  realAlertByPublicId,
  touchAlert,
} from './repository.js';
export { AlertMoved, type ServerAlertDeps, sendServerAlert } from './server-fired.js';
export { sinceOf } from './why.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's SMS, jobs of its engine; `drain()` and `runOnce()` let tests wait for them. */
    dispatcher: Dispatcher;
  }
}

/**
 * The alert pipeline: public alert routes, the owner's history, the SMS (jobs of the process's
 * engine, which stops taking jobs before the app closes and waits for the sends in flight) and
 * delivery receipts.
 */
export default fp(
  async function alerts(app: FastifyInstance) {
    const dispatcher = createDispatcher({
      db: app.db,
      dialect: app.dialect,
      sms: app.sms,
      payments: app.payments,
      clock: app.clock,
      log: app.log,
      jobs: app.jobs,
    });
    app.decorate('dispatcher', dispatcher);
    // The owner's e-mail about each real alert, set in the alert's own transaction, and its bursts' summary.
    app.jobs.handle('owner-alert-mail', ({ subject, attempt, fromWriter }) =>
      mailOwnerAboutAlert(app, subject, attempt, fromWriter as OwnerMailWritten | undefined),
    );
    app.summaryMails.add('alert_receipt', (user, count, since) => ownerSummaryMail(app, user, count, since));
    // Receipts the adapter reports itself (the dev outbox); Twilio's arrive at /api/sms/status/.
    // Once closing starts the database may go at any moment: late receipts are dropped.
    let closing = false;
    app.sms.onStatus((providerMessageId, status, reason) => {
      if (closing) return;
      applyProviderStatus(app.db, {
        providerMessageId,
        status,
        ...(reason ? { reason } : {}),
        now: app.clock.now(),
      }).catch((error: unknown) => app.log.warn({ err: error }, 'SMS status report not recorded'));
    });
    app.addHook('preClose', async () => {
      closing = true;
      await dispatcher.stop();
    });

    await app.register(alertRoutes);
    await app.register(alertHistoryRoutes);
    await app.register(deviceKeyRoutes);
    await app.register(openAlertsRoutes);
    // Documented always; answered (404 otherwise) only when the SMS adapter takes status callbacks.
    await app.register(smsStatusRoutes);
  },
  { name: 'alerts', dependencies: ['database', 'security', 'auth'] },
);
