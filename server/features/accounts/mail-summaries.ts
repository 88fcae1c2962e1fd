import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database, Db, MailBurstKind, User } from '../../db/schema.js';
import { enqueue, type JobHandler } from '../../jobs/index.js';
import type { Clock } from '../../lib/clock.js';
import { DAY } from '../../lib/time.js';
import type { MailMessage, MailPort } from '../../providers/mail/port.js';
import { capped, countMail, momentsAt } from './mail-bursts.js';
import { findById } from './repository.js';

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
    await enqueue(db, { kind: 'mail-summary', subject: id, dueAt, now });
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

/** Bursts idle for a day, with nothing to tell: their rows go (a new burst starts a new row). The `mail-bursts-prune` job, hourly. */
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

/**
 * The summary mail of each kind of burst, each added by the feature whose e-mails it gathers
 * (alert receipts by alerts, reminders by check-ins, STOPs by sms-replies, the rest by accounts).
 */
export interface SummaryMails {
  /** Adds the summary of `kind`'s bursts; a kind added twice refuses. */
  add(kind: MailBurstKind, write: SummaryMail): void;
  /** The summary of `kind`'s bursts; throws (the job retries) when none was added. */
  of(kind: MailBurstKind): SummaryMail;
  /** Throws, naming them, when a kind of burst has no summary (checked before the server starts). */
  ready(): void;
}

/** Where the features add their bursts' summary mails. */
export function summaryMails(): SummaryMails {
  const writers = new Map<MailBurstKind, SummaryMail>();
  // Every kind, by type: a kind of burst added to the schema is missing here until named.
  const every: Record<MailBurstKind, true> = {
    alert_receipt: true,
    registration_notice: true,
    checkin_reminder: true,
    password_reset: true,
    contact_opt_out: true,
  };
  return {
    add(kind, write) {
      if (writers.has(kind)) throw new Error(`the summary mail of ${kind} bursts added twice`);
      writers.set(kind, write);
    },
    of(kind) {
      const write = writers.get(kind);
      if (!write) throw new Error(`no summary mail for ${kind} bursts`);
      return write;
    },
    ready() {
      const missing = (Object.keys(every) as MailBurstKind[]).filter((kind) => !writers.has(kind));
      if (missing.length > 0) throw new Error(`no summary mail for the bursts of ${missing.join(', ')}`);
    },
  };
}

/**
 * The `mail-summary` job's handler: takes the burst's events, writes the summary for the
 * address's current owner and sends it. An address that changed hands sends nothing; a mail
 * that fails puts its events back and the job tries again. A run taken over after a crash
 * sends what the dead one had taken.
 */
export function summaryJob(
  deps: { db: Kysely<Database>; clock: Clock; mail: MailPort },
  mails: Pick<SummaryMails, 'of'>,
): JobHandler {
  const { db, clock, mail } = deps;
  return async ({ subject }) => {
    const now = clock.now();
    const burst = await takeSummary(db, subject, now);
    if (!burst) return;
    try {
      const user = await findById(db, burst.user_id);
      const count = Number(burst.claimed_count);
      const message =
        user && user.email === burst.address && count > 0
          ? await mails.of(burst.kind)(user, count, Number(burst.claimed_since ?? now))
          : null;
      if (message) await mail.send(message);
      await finishSummary(db, burst.id);
    } catch (error) {
      await failSummary(db, burst.id);
      throw error;
    }
  };
}
