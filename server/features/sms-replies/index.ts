import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HOUR } from '../../lib/time.js';
import { NOTICE_JOB, noticeJob, noticeKind } from './notices.js';
import { OPT_OUT_MAIL_JOB, optOutMailJob } from './opt-out-mail.js';
import { forgetOldInbound } from './repository.js';
import smsInboundRoutes from './routes.js';

export { inviteContact } from './invitations.js';
export { optOutSummaryMail } from './opt-out-mail.js';
export { optOut } from './opt-outs.js';
export { handleReply } from './replies.js';
export { lockNumbers, optedOutAmong } from './repository.js';

/**
 * Contacts who agree and answer by SMS: the notices' job (invitations, help, "which alert?"),
 * the owners' e-mail when a contact says STOP, and the provider's inbound webhook, whose replays' keys are forgotten after a day. Opt-outs
 * are read where SMS are queued (alerts' budgets, invitations) and sent (the dispatcher, the
 * notices' job).
 */
export default fp(
  async function smsReplies(app: FastifyInstance) {
    app.timers.on(NOTICE_JOB, noticeJob(app), noticeKind(app));
    app.timers.on(OPT_OUT_MAIL_JOB, optOutMailJob(app));
    app.timers.every('sms-inbound-prune', HOUR, () => forgetOldInbound(app.db, app.clock.now()));
    await app.register(smsInboundRoutes);
  },
  { name: 'sms-replies', dependencies: ['database', 'alerts', 'live'] },
);
