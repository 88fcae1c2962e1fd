import type { Kysely } from 'kysely';
import type { Database, Db, MailBurstKind, User } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Deps } from '../../lib/deps.js';
import { DAY } from '../../lib/time.js';
import { setTimer, type TimerHandler } from '../../lib/timers.js';
import type { MailMessage, MailPort } from '../../providers/mail/port.js';
import { MAIL_SUMMARY_TIMER, momentsAt } from './mail-bursts.js';
import { burstById, failSummary, finishSummary, takeSummary } from './mail-bursts-repository.js';
import { findById } from './repository.js';
import { resetSummary } from './reset.js';

/*
 * A burst's summary (mail-bursts.ts): the `mail-summary` timer takes what was gathered, mails it
 * and counts the mail; the rows of idle bursts are pruned.
 */

/**
 * Takes the burst's pending events for its summary and counts the mail; undefined when there is
 * nothing to tell or the day's cap holds it, then the timer is set again for the end of that day.
 */
async function takenSummary(db: Db, id: string, now: number) {
  const taken = await takeSummary(db, id, momentsAt(now));
  if (taken) return taken;
  const held = await burstById(db, id);
  if (held && Number(held.pending) > 0) {
    const dueAt = Number(held.day_started_at) + DAY;
    await setTimer(db, { kind: MAIL_SUMMARY_TIMER, subject: id, dueAt, now });
  }
  return undefined;
}

/** Writes the summary of `count` events since `since` to `user`; null sends nothing. */
export type SummaryMail = (
  user: User,
  count: number,
  since: number,
) => Promise<MailMessage | null> | MailMessage | null;

/** The kinds whose summaries this feature writes itself; the others' come from their features. */
type AccountsKind = 'password_reset';

/**
 * The `mail-summary` timer's handler: takes the burst's events, writes the summary for the
 * address's current owner and sends it. An address that changed hands sends nothing; a mail
 * that fails puts its events back and the timer tries again. A run taken over after a crash
 * sends what the dead one had taken.
 */
export function summaryTimer(
  deps: { db: Kysely<Database>; clock: Clock; mail: MailPort } & Pick<Deps, 'config'>,
  others: Record<Exclude<MailBurstKind, AccountsKind>, SummaryMail>,
): TimerHandler {
  const { db, clock, mail } = deps;
  const mails: Record<MailBurstKind, SummaryMail> = {
    ...others,
    password_reset: (user, count, since) => resetSummary(deps, user, count, since),
  };
  return async ({ subject }) => {
    const now = clock.now();
    const burst = await takenSummary(db, subject, now);
    if (!burst) return;
    try {
      const user = await findById(db, burst.user_id);
      const count = Number(burst.claimed_count);
      const message =
        user && user.email === burst.address && count > 0
          ? await mails[burst.kind](user, count, Number(burst.claimed_since ?? now))
          : null;
      if (message) await mail.send(message);
      await finishSummary(db, burst.id);
    } catch (error) {
      await failSummary(db, burst.id);
      throw error;
    }
  };
}
