import type { Db } from '../../db/schema.js';
import type { SmsNoticeKind } from '../../db/schema-replies.js';
import type { Deps } from '../../lib/deps.js';
import { newId } from '../../lib/ids.js';
import { setTimer, type TimerHandler } from '../../lib/timers.js';
import { isOptedOutError, type SmsPort } from '../../providers/sms/port.js';
import { isPermanent } from '../alerts/failed-attempts.js';
import { optedOutAmong, optOut } from './opt-outs.js';

/** The job that sends one notice (its id is the subject). */
export const NOTICE_JOB = 'sms-notice';

/**
 * Queues one SMS outside an alert (an invitation, the help text, "which alert?") in the
 * caller's transaction, with the job that sends it; the caller kicks the timers after commit.
 */
export async function queueNotice(
  db: Db,
  notice: { userId?: string; phone: string; kind: SmsNoticeKind; body: string; now: number },
): Promise<void> {
  const id = newId();
  const { now } = notice;
  await db
    .insertInto('sms_notices')
    .values({
      id,
      user_id: notice.userId ?? null,
      phone_number: notice.phone,
      kind: notice.kind,
      body: notice.body,
      status: 'queued',
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await setTimer(db, { kind: NOTICE_JOB, subject: id, dueAt: now, now });
}

/** How many notices of `kind` went (or are going) to `phone` since `since`. */
export async function noticesSince(db: Db, phone: string, kind: SmsNoticeKind, since: number): Promise<number> {
  const row = await db
    .selectFrom('sms_notices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('phone_number', '=', phone)
    .where('kind', '=', kind)
    .where('created_at', '>', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

async function settle(db: Db, id: string, status: 'sent' | 'failed' | 'opted_out', now: number, error?: string) {
  await db
    .updateTable('sms_notices')
    .set({ status, updated_at: now, last_error: error?.slice(0, 500) ?? null })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Sends a queued notice, unless its number opted out meanwhile. A refusal because the number
 * said STOP to the carrier (Twilio's 21610) opts it out; another permanent refusal fails it;
 * anything else throws, and the job engine retries it.
 */
export function noticeJob(deps: Pick<Deps, 'db' | 'clock'> & { sms: SmsPort }): TimerHandler {
  return async ({ subject }) => {
    const notice = await deps.db
      .selectFrom('sms_notices')
      .selectAll()
      .where('id', '=', subject)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    if (!notice) return;
    if ((await optedOutAmong(deps.db, [notice.phone_number])).size > 0) {
      await settle(deps.db, notice.id, 'opted_out', deps.clock.now());
      return;
    }
    try {
      await deps.sms.send({ to: notice.phone_number, body: notice.body, reference: `notice-${notice.id}` });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (isOptedOutError(error)) {
        await optOut(deps.db, notice.phone_number, 'provider', deps.clock.now());
        await settle(deps.db, notice.id, 'opted_out', deps.clock.now(), reason);
        return;
      }
      if (isPermanent(error)) {
        await settle(deps.db, notice.id, 'failed', deps.clock.now(), reason);
        return;
      }
      throw error;
    }
    await settle(deps.db, notice.id, 'sent', deps.clock.now());
  };
}
