import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database, Db, MailBurstKind, User } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import type { Deps } from '../../lib/deps.js';
import { DAY } from '../../lib/time.js';
import { setTimer, type TimerHandler } from '../../lib/timers.js';
import type { MailMessage, MailPort } from '../../providers/mail/port.js';
import { capped, countMail, MAIL_SUMMARY_TIMER, momentsAt } from './mail-bursts.js';
import { findById } from './repository.js';
import { resetSummary } from './reset.js';

/*
 * A burst's summary (mail-bursts.ts): the `mail-summary` timer takes what was gathered, mails it
 * and counts the mail; the rows of idle bursts are pruned.
 */

/**
 * Takes the burst's pending events for its summary (with those of a summary whose sender died
 * mid-send) and counts the mail; undefined when there is nothing to tell or the day's cap holds
 * it, then the timer is set again for the end of that day.
 */
async function takeSummary(db: Db, id: string, now: number) {
  // In SQL every right-hand side reads the row as it was: the pending count moves over whole.
  const moments = momentsAt(now);
  const taken = await db
    .updateTable('mail_bursts')
    .set({
      claimed_count: sql<number>`claimed_count + pending`,
      claimed_since: sql<number>`coalesce(claimed_since, pending_since)`,
      pending: 0,
      pending_since: null,
      last_mail_at: now,
      ...countMail(moments),
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('pending', '>', 0), eb('claimed_count', '>', 0)]))
    .where((eb) => eb.not(capped(eb, moments)))
    .returningAll()
    .executeTakeFirst();
  if (taken) return taken;
  const held = await db.selectFrom('mail_bursts').selectAll().where('id', '=', id).executeTakeFirst();
  if (held && Number(held.pending) > 0) {
    const dueAt = Number(held.day_started_at) + DAY;
    await setTimer(db, { kind: MAIL_SUMMARY_TIMER, subject: id, dueAt, now });
  }
  return undefined;
}

/** The summary went out (or had no one to go to). */
async function finishSummary(db: Db, id: string): Promise<void> {
  await db.updateTable('mail_bursts').set({ claimed_count: 0, claimed_since: null }).where('id', '=', id).execute();
}

/** The summary could not be sent: its events go back to pending, for the timer's next try. */
async function failSummary(db: Db, id: string): Promise<void> {
  await db
    .updateTable('mail_bursts')
    .set({
      pending: sql<number>`pending + claimed_count`,
      pending_since: sql<number>`case when pending_since is null or claimed_since < pending_since then claimed_since else pending_since end`,
      claimed_count: 0,
      claimed_since: null,
    })
    .where('id', '=', id)
    .execute();
}

/** Bursts idle for a day, with nothing to tell: their rows go (a new burst starts a new row). */
export async function pruneMailBursts(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .deleteFrom('mail_bursts')
    .where('pending', '=', 0)
    .where('claimed_count', '=', 0)
    .where('day_started_at', '<=', now - DAY)
    .where((eb) => eb.or([eb('last_mail_at', 'is', null), eb('last_mail_at', '<=', now - DAY)]))
    .execute();
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
    const burst = await takeSummary(db, subject, now);
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
