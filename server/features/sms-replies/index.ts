import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { noticeHooks, noticeJob } from './notices.js';
import { optOutMailJob, optOutSummaryMail } from './opt-out-mail.js';
import { forgetOldInbound } from './repository.js';
import smsInboundRoutes from './routes.js';

export { inviteContact } from './invitations.js';
export { optOut } from './opt-outs.js';
export { handleReply } from './replies.js';
export { lockNumbers, optedOutAmong } from './repository.js';

/**
 * Contacts who agree and answer by SMS: the notices' job (invitations, help, "which alert?"),
 * the owners' e-mail when a contact says STOP (one per burst), and the provider's inbound webhook, whose replays' keys are forgotten after a day. Opt-outs
 * are read where SMS are queued (alerts' budgets, invitations) and sent (the dispatcher, the
 * notices' job).
 */
export default fp(
  async function smsReplies(app: FastifyInstance) {
    app.jobs.handle('sms-notice', noticeJob(app), noticeHooks(app));
    app.jobs.handle('contact-opt-out-mail', optOutMailJob(app));
    app.summaryMails.add('contact_opt_out', (user, count, since) => optOutSummaryMail(app, user, count, since));
    app.jobs.every('sms-inbound-prune', () => forgetOldInbound(app.db, app.clock.now()));
    await app.register(smsInboundRoutes);
  },
  { name: 'sms-replies', dependencies: ['database', 'alerts', 'live'] },
);
