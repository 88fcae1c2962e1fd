import { CHECKIN_WRONG_PINS } from '../../../common/constants.js';
import type { Checkin } from '../../db/schema.js';
import { enqueue, type JobHandler } from '../../jobs/index.js';
import { findById, noteMailEvent } from '../accounts/index.js';
import { AlertMoved } from '../alerts/index.js';
import { type FireDeps, sendCheckinAlert } from './fire.js';
import { pushToOwner } from './push.js';
import { reminderMail, reminderPage, reminderPush } from './reminder.js';
import { checkinById, markOverdue, updateActive } from './repository.js';

/** When the alert goes out unless the check-in is ended: its due time and the grace. */
export const firesAt = (checkin: Checkin) => Number(checkin.due_at) + Number(checkin.grace_seconds) * 1000;

/**
 * Each check-in's job (kind `checkin`, subject the check-in's id): at the due time it turns `overdue` and reminds the owner; at the end
 * of the grace (or at the fifth wrong PIN) it fires, the check-in marked `fired` in the same
 * transaction as its alert, only while still active, so "I'm safe" or an extension that
 * committed first wins and a run taken over after a crash sends nothing twice. A check-in
 * ended or extended with the duress PIN sends its duress alert (set due at once by either). A
 * server that was down past the whole grace fires at once, with the real due time.
 */
export function checkinJobs(deps: FireDeps): { checkin: JobHandler; reminder: JobHandler } {
  const { db, clock } = deps;
  const setDueAt = (checkin: Checkin, dueAt: number) =>
    enqueue(db, { kind: 'checkin', subject: checkin.id, dueAt, now: clock.now() });

  async function fire(checkin: Checkin, now: number) {
    await sendCheckinAlert(deps, checkin, 'missed_checkin', async (trx, alertId) => {
      if (!(await updateActive(trx, checkin.id, { status: 'fired', alert_id: alertId, ended_at: now }))) {
        throw new AlertMoved();
      }
    });
  }

  /**
   * On every browser the owner allowed, and by e-mail to a confirmed address: one per burst
   * (mail-bursts.ts), as anyone holding the link can start check-ins that fall due. A failed
   * e-mail fails the job so the engine sends it again; a retry (`attempt` > 1, after a failure
   * or a takeover) leaves the browsers alone and the burst as counted.
   */
  async function remind(checkin: Checkin, attempt: number): Promise<void> {
    const user = await findById(db, checkin.user_id);
    if (!user?.token) return;
    const page = reminderPage(deps.config.APP_URL, user.token);
    const mail = async () => {
      const address = user.email;
      if (!address || !user.email_verified) return;
      const event = { kind: 'checkin_reminder' as const, address, userId: user.id, now: clock.now() };
      // A run after a failure or a takeover: the burst counted this reminder already, and it may not have gone.
      if (attempt === 1 && (await noteMailEvent(db, deps.dialect, event)) !== 'send') return;
      await deps.mail.send(reminderMail(user, checkin, page));
    };
    const notify = attempt === 1 ? pushToOwner(deps, user.id, reminderPush(user, checkin, page)) : undefined;
    await Promise.all([notify, mail()]);
  }

  const checkinJob: JobHandler = async ({ subject }) => {
    const checkin = await checkinById(db, subject);
    if (!checkin) return;
    const now = clock.now();
    // Ended or extended with the duress PIN: its alert goes once (its key), the check-in runs on.
    if (checkin.duress === 1) await sendCheckinAlert(deps, checkin, 'duress');
    if (checkin.status === 'done' || checkin.status === 'fired') return;
    if (now >= firesAt(checkin) || Number(checkin.wrong_pins) >= CHECKIN_WRONG_PINS) return fire(checkin, now);
    if (now < Number(checkin.due_at)) return setDueAt(checkin, Number(checkin.due_at));
    if (checkin.status === 'running') {
      const overdue = await db.transaction().execute(async (trx) => {
        if (!(await markOverdue(trx, checkin.id))) return false;
        await enqueue(trx, { kind: 'checkin', subject: checkin.id, dueAt: firesAt(checkin), now });
        await enqueue(trx, { kind: 'checkin-reminder', subject: checkin.id, dueAt: now, now });
        return true;
      });
      if (overdue) deps.jobs.kick();
      return;
    }
    return setDueAt(checkin, firesAt(checkin));
  };

  /**
   * The reminder's job (`checkin-reminder`), enqueued with the overdue mark, so a crash between
   * the two loses neither: only while the check-in is still overdue (ended meanwhile, nobody needs it).
   */
  const reminder: JobHandler = async ({ subject, attempt }) => {
    const checkin = await checkinById(db, subject);
    if (checkin?.status === 'overdue') await remind(checkin, attempt);
  };
  return { checkin: checkinJob, reminder };
}
