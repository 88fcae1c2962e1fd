import type { Db } from '../../db/schema.js';
import type { SmsNoticeKind } from '../../db/schema-replies.js';
import { enqueue, type JobHandler, type KindHooks } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { newId } from '../../lib/ids.js';
import { SMS_LOOKUP_TIMEOUT_MS, SMS_SEND_TIMEOUT_MS } from '../../lib/reliability.js';
import { heldAfterAttempt, isPermanent, withTimeout } from '../../providers/calls.js';
import { isOptedOutError, type SmsPort } from '../../providers/sms/port.js';
import { optOut } from './opt-outs.js';
import { insertNotice, lockNumber, noticesSince, optedOutAmong, queuedNotice, settleNotice } from './repository.js';

/**
 * Queues one SMS outside an alert (an invitation, the help text, "which alert?") in the
 * caller's transaction, with the job that sends it; the caller kicks the jobs after commit.
 */
export async function queueNotice(
  db: Db,
  notice: { userId?: string; phone: string; kind: SmsNoticeKind; body: string; now: number },
): Promise<void> {
  const id = newId();
  const { now } = notice;
  await insertNotice(db, { ...notice, id });
  await enqueue(db, { kind: 'sms-notice', subject: id, dueAt: now, now });
}

/**
 * Queues a reply's own notice unless one like it (of its kind, or with its very text when
 * `sameText`) went to the number since `since`, counted under the number's lock so two replies
 * at once queue one; `alsoWrite` runs in that transaction when it is queued. Kicks the jobs
 * after commit; false when it was not queued.
 */
export async function queueNoticeOnce(
  deps: Pick<Deps, 'db' | 'dialect' | 'jobs'>,
  notice: { phone: string; kind: SmsNoticeKind; body: string; now: number; since: number; sameText?: boolean },
  alsoWrite?: (trx: Db) => Promise<void>,
): Promise<boolean> {
  const { phone, kind, body, now, since } = notice;
  const queued = await deps.db.transaction().execute(async (trx) => {
    await lockNumber(trx, deps.dialect, phone);
    if ((await noticesSince(trx, phone, kind, since, notice.sameText ? body : undefined)) > 0) return false;
    await alsoWrite?.(trx);
    await queueNotice(trx, { phone, kind, body, now });
    return true;
  });
  if (queued) deps.jobs.kick();
  return queued;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The notices' hooks on the job engine: a notice whose job is parked (out of attempts) is marked
 * `failed` with the last reason, in the transaction that parks it, never left `queued`.
 */
export function noticeHooks(deps: Pick<Deps, 'clock'>): KindHooks {
  return { parked: (trx, subject, error) => settleNotice(trx, subject, 'failed', deps.clock.now(), reasonOf(error)) };
}

/**
 * Whether the provider already holds this notice: a run that sent it and then died, timed out or
 * lost its lease before writing 'sent' must not send it twice. Its text is the number's own since
 * it was queued (an invitation names its owner and is re-asked a week later at the earliest; help
 * and "which alert?" go at most once an hour). When the provider cannot tell, it is sent again.
 */
async function alreadyHeld(sms: SmsPort, notice: { phone_number: string; body: string; created_at: number }) {
  if (!sms.find) return false;
  const find = sms.find.bind(sms);
  const lookup = { to: notice.phone_number, body: notice.body, since: Number(notice.created_at) };
  return Boolean(await heldAfterAttempt(() => find(lookup), SMS_LOOKUP_TIMEOUT_MS));
}

/**
 * Sends a queued notice, unless its number opted out meanwhile, or (on a later attempt) the
 * provider already has it, or the run no longer holds its job right before the send (another
 * process took it over). The send gets the dispatcher's patience: one that goes unanswered
 * throws, and the next attempt asks the provider first. A refusal because the number said STOP
 * to the carrier (Twilio's 21610) opts it out; another permanent refusal fails it; anything else
 * throws, and the job engine retries it.
 */
export function noticeJob(
  deps: Pick<Deps, 'db' | 'clock'> & { sms: SmsPort },
  options: { sendTimeoutMs?: number } = {},
): JobHandler {
  const sendTimeoutMs = options.sendTimeoutMs ?? SMS_SEND_TIMEOUT_MS;
  return async ({ subject, attempt, holds }) => {
    const notice = await queuedNotice(deps.db, subject);
    if (!notice) return;
    if ((await optedOutAmong(deps.db, [notice.phone_number])).size > 0) {
      await settleNotice(deps.db, notice.id, 'opted_out', deps.clock.now());
      return;
    }
    if (attempt > 1 && (await alreadyHeld(deps.sms, notice))) {
      await settleNotice(deps.db, notice.id, 'sent', deps.clock.now());
      return;
    }
    // A run stalled past its lease (the lookup above, a pause) may have lost the job to another run, which sends it.
    if (!(await holds())) return;
    try {
      const message = { to: notice.phone_number, body: notice.body, reference: `notice-${notice.id}` };
      await withTimeout(deps.sms.send(message), sendTimeoutMs);
    } catch (error) {
      const reason = reasonOf(error);
      if (isOptedOutError(error)) {
        await optOut(deps.db, notice.phone_number, 'provider', deps.clock.now());
        await settleNotice(deps.db, notice.id, 'opted_out', deps.clock.now(), reason);
        return;
      }
      if (isPermanent(error)) {
        await settleNotice(deps.db, notice.id, 'failed', deps.clock.now(), reason);
        return;
      }
      throw error;
    }
    await settleNotice(deps.db, notice.id, 'sent', deps.clock.now());
  };
}
