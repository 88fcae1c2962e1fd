import type { Kysely } from 'kysely';
import type { Database, Db, MailBurstKind, User } from '../../db/schema.js';
import { enqueue, type JobHandler } from '../../jobs/index.js';
import type { Clock } from '../../lib/clock.js';
import { DAY } from '../../lib/time.js';
import type { MailMessage, MailPort } from '../../providers/mail/port.js';
import { momentsAt } from './mail-bursts.js';
import { burstById, failSummary, finishSummary, takeSummary } from './mail-bursts-repository.js';
import { findById } from './repository.js';

/*
 * A burst's summary (mail-bursts.ts): the `mail-summary` job takes what was gathered, mails it
 * and counts the mail; the rows of idle bursts are pruned.
 */

/**
 * Takes the burst's pending events for its summary and counts the mail; undefined when there is
 * nothing to tell or the day's cap holds it, then the job is enqueued again for the end of that day.
 */
async function takenSummary(db: Db, id: string, now: number) {
  const taken = await takeSummary(db, id, momentsAt(now));
  if (taken) return taken;
  const held = await burstById(db, id);
  if (held && Number(held.pending) > 0) {
    const dueAt = Number(held.day_started_at) + DAY;
    await enqueue(db, { kind: 'mail-summary', subject: id, dueAt, now });
  }
  return undefined;
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
    const burst = await takenSummary(db, subject, now);
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
