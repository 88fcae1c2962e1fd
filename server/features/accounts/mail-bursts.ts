import type { FastifyInstance } from 'fastify';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { claimRows } from '../../db/claim.js';
import type { Dialect } from '../../db/index.js';
import type { Database, MailBurst, MailBurstKind, User } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { DAY, HOUR, MINUTE } from '../../lib/time.js';
import type { MailMessage } from '../../providers/mail/port.js';
import { findById } from './repository.js';

/**
 * E-mails a stranger can set off (the owner's alert receipts through a leaked link, "someone
 * tried to register with your address") go out one per burst, per kind and address: the first
 * at once, then what happens within `spacingMs` is counted and told in ONE summary when that
 * time is up, and never more than `perDay` of a kind (first ones and summaries) in 24 hours.
 * What the cap holds back is summarised once the day is over.
 */
export const MAIL_BURST = {
  spacingMs: 10 * MINUTE,
  perDay: 20,
  /** How long a sweep holds a summary it is sending before another may take it over. */
  leaseMs: MINUTE,
  /** When a summary that could not be sent is tried again. */
  retryMs: MINUTE,
} as const;

/** Whether an event is mailed now, or gathered into the summary the sweep sends later. */
export type BurstDecision = 'send' | 'gathered';

type Row = ExpressionBuilder<Database, 'mail_bursts'>;

/** The day's counter moved on by one mail: a new 24 hours start when the last ones are over. */
const countMail = (now: number) => ({
  day_count: sql<number>`case when day_started_at <= ${now - DAY} then 1 else day_count + 1 end`,
  day_started_at: sql<number>`case when day_started_at <= ${now - DAY} then ${now} else day_started_at end`,
});

/** The day's cap is reached (and its 24 hours are not over). */
const capped = (eb: Row, now: number) =>
  eb.and([eb('day_count', '>=', MAIL_BURST.perDay), eb('day_started_at', '>', now - DAY)]);

/**
 * Counts one event for (kind, address). The first of a burst answers 'send' (and that mail is
 * counted); the others answer 'gathered' and make a summary due `spacingMs` after the last
 * mail, or when the day's cap ends. Each step is one atomic statement, so two processes never
 * both send a first mail.
 */
export async function noteMailEvent(
  db: Kysely<Database>,
  input: { kind: MailBurstKind; address: string; userId: string; now: number },
): Promise<BurstDecision> {
  const { kind, address, userId, now } = input;
  await db
    .insertInto('mail_bursts')
    .values({
      id: newId(),
      kind,
      address,
      user_id: userId,
      last_mail_at: null,
      pending: 0,
      pending_since: null,
      due_at: null,
      claimed_count: 0,
      claimed_since: null,
      claimed_until: null,
      day_started_at: now,
      day_count: 0,
    })
    .onConflict((oc) => oc.columns(['kind', 'address']).doNothing())
    .execute();
  const first = await db
    .updateTable('mail_bursts')
    .set({ user_id: userId, last_mail_at: now, ...countMail(now) })
    .where('kind', '=', kind)
    .where('address', '=', address)
    .where('pending', '=', 0)
    .where('claimed_count', '=', 0)
    .where((eb) => eb.or([eb('last_mail_at', 'is', null), eb('last_mail_at', '<=', now - MAIL_BURST.spacingMs)]))
    .where((eb) => eb.not(capped(eb, now)))
    .executeTakeFirst();
  if (Number(first.numUpdatedRows) === 1) return 'send';
  const spaced = sql<number>`coalesce(last_mail_at, ${now}) + ${MAIL_BURST.spacingMs}`;
  const dayOver = sql<number>`day_started_at + ${DAY}`;
  await db
    .updateTable('mail_bursts')
    .set({
      user_id: userId,
      pending: sql<number>`pending + 1`,
      pending_since: sql<number>`coalesce(pending_since, ${now})`,
      due_at: sql<number>`coalesce(due_at, case when day_count >= ${MAIL_BURST.perDay} and ${dayOver} > ${spaced} then ${dayOver} else ${spaced} end)`,
    })
    .where('kind', '=', kind)
    .where('address', '=', address)
    .execute();
  return 'gathered';
}

/**
 * Takes up to `limit` bursts whose summary is due (or whose sender died mid-send), moves their
 * pending count into `claimed_count` under a lease and counts the mail, so any number of
 * sweeps in any number of processes send each summary once. PostgreSQL skips rows another
 * sweep holds (FOR UPDATE SKIP LOCKED, as the SMS dispatcher's claim); on SQLite the single
 * UPDATE … RETURNING holds the write lock.
 */
export async function claimDueSummaries(
  db: Kysely<Database>,
  dialect: Dialect,
  options: { now: number; limit: number },
): Promise<MailBurst[]> {
  const { now, limit } = options;
  const isDue = (eb: Row) =>
    eb.or([
      eb.and([
        eb('due_at', '<=', now),
        eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]),
        eb.not(capped(eb, now)),
      ]),
      eb.and([eb('claimed_count', '>', 0), eb('claimed_until', '<', now)]),
    ]);
  // In SQL every right-hand side reads the row as it was: the pending count moves over whole.
  const claim = {
    claimed_count: sql<number>`claimed_count + pending`,
    claimed_since: sql<number>`coalesce(claimed_since, pending_since)`,
    pending: 0,
    pending_since: null,
    due_at: null,
    claimed_until: now + MAIL_BURST.leaseMs,
    last_mail_at: now,
    ...countMail(now),
  };
  return claimRows(db, dialect, 'mail_bursts', { isDue, orderBy: 'due_at', set: claim, limit });
}

/** A claimed summary went out (or had no one to go to): the claim ends. */
async function finishSummary(db: Kysely<Database>, burst: MailBurst): Promise<void> {
  await db
    .updateTable('mail_bursts')
    .set({ claimed_count: 0, claimed_since: null, claimed_until: null })
    .where('id', '=', burst.id)
    .where('claimed_until', '=', burst.claimed_until)
    .execute();
}

/** A claimed summary could not be sent: its events go back to pending, tried again in `retryMs`. */
async function failSummary(db: Kysely<Database>, burst: MailBurst, now: number): Promise<void> {
  await db
    .updateTable('mail_bursts')
    .set({
      pending: sql<number>`pending + claimed_count`,
      pending_since: sql<number>`case when pending_since is null or claimed_since < pending_since then claimed_since else pending_since end`,
      due_at: now + MAIL_BURST.retryMs,
      claimed_count: 0,
      claimed_since: null,
      claimed_until: null,
    })
    .where('id', '=', burst.id)
    .where('claimed_until', '=', burst.claimed_until)
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
  app: FastifyInstance,
  user: User,
  count: number,
  since: number,
) => Promise<MailMessage | null> | MailMessage | null;

const BATCH = 20;

/**
 * The sweep's part for summaries (run by the SMS dispatcher's sweep): claims every due
 * summary, writes it for the address's current owner and sends it. An address that changed
 * hands, or a mail that fails, never stops the others; a failed one is tried again.
 */
export function summarySweep(app: FastifyInstance, mails: Record<MailBurstKind, SummaryMail>) {
  let prunedAt = Number.NEGATIVE_INFINITY;
  return async function sweepSummaries(): Promise<void> {
    for (;;) {
      const now = app.clock.now();
      const claimed = await claimDueSummaries(app.db, app.dialect, { now, limit: BATCH });
      for (const burst of claimed) {
        try {
          const user = await findById(app.db, burst.user_id);
          const count = Number(burst.claimed_count);
          const mail =
            user && user.email === burst.address && count > 0
              ? await mails[burst.kind](app, user, count, Number(burst.claimed_since ?? now))
              : null;
          if (mail) await app.mail.send(mail);
          await finishSummary(app.db, burst);
        } catch (error) {
          app.log.error({ reason: (error as Error).message, kind: burst.kind }, 'summary e-mail could not be sent');
          await failSummary(app.db, burst, app.clock.now());
        }
      }
      if (claimed.length < BATCH) break;
    }
    const now = app.clock.now();
    if (now - prunedAt >= HOUR) {
      prunedAt = now;
      await pruneMailBursts(app.db, now);
    }
  };
}
