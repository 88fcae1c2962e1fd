import type { Kysely } from 'kysely';
import { groupsWrites, inGroupedTransaction, inTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { enqueue } from '../../jobs/index.js';
import { nextTurn } from '../../lib/background.js';
import { DAY, MINUTE } from '../../lib/time.js';
import { gatherPending, type MailEvent, type Moments, noteBurstEvents } from './mail-bursts-repository.js';

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
} as const;

/** Whether an event is mailed now, or gathered into the summary its job sends later. */
export type BurstDecision = 'send' | 'gathered';

/** The moments a burst's conditions compare with at `now`, and the day's cap. */
export const momentsAt = (now: number): Moments => ({
  now,
  dayAgo: now - DAY,
  spacedAgo: now - MAIL_BURST.spacingMs,
  perDay: MAIL_BURST.perDay,
});

/**
 * Counts one event for (kind, address). The first of a burst answers 'send' (and that mail is
 * counted); the others answer 'gathered' and enqueue the burst's summary job `spacingMs` after
 * the last mail, or at the end of the day's cap. Each step is one atomic statement, so two
 * processes never both send a first mail; the first gathered event and the job commit
 * together, and the others of the burst only count themselves. A burst's events are counted
 * together, in one statement: those noted in the same turn of the event loop, and those noted
 * while the burst's last statement is still running, counted once it is done. A link pressed
 * again and again (a stranger with a leaked link, a load test) would otherwise queue every
 * alert's receipt on the burst's one row, each holding a connection while it waits for the
 * row's lock; now a process has at most one statement per burst under way. A statement that
 * hangs (the row locked by a stuck transaction) holds the burst's later receipts here, as the
 * lock held them before, but with one pooled connection where each receipt took one.
 */
export function noteMailEvent(db: Kysely<Database>, dialect: Dialect, input: MailEvent): Promise<BurstDecision> {
  let bursts = gathering.get(db);
  if (!bursts) {
    bursts = { waiting: new Map(), last: new Map() };
    gathering.set(db, bursts);
  }
  const key = JSON.stringify([input.kind, input.address, input.userId]);
  const joined = bursts.waiting.get(key);
  if (joined) {
    joined.count += 1;
    // Counted at the time of the latest event: a batch may wait a whole statement for its turn.
    joined.now = input.now;
    return joined.firstSends.then(() => 'gathered');
  }
  // After the burst's last batch, or else at the end of this turn.
  const firstSends = (bursts.last.get(key) ?? nextTurn()).then(() => {
    bursts.waiting.delete(key);
    return noteEvents(db, dialect, { ...input, now: events.now }, events.count);
  });
  const events: Gathered = { count: 1, now: input.now, firstSends };
  bursts.waiting.set(key, events);
  const settled = firstSends.then(
    () => undefined,
    () => undefined,
  );
  bursts.last.set(key, settled);
  void settled.then(() => {
    if (bursts.last.get(key) === settled) bursts.last.delete(key);
  });
  return firstSends.then((sends) => (sends ? 'send' : 'gathered'));
}

/** A burst's events counted together: how many, the latest one's time, whether the first is mailed now. */
type Gathered = { count: number; now: number; firstSends: Promise<boolean> };

/**
 * Per database, the bursts' events waiting to be counted, and each burst's last batch (settled
 * either way), which the next one waits for.
 */
const gathering = new WeakMap<Kysely<Database>, { waiting: Map<string, Gathered>; last: Map<string, Promise<void>> }>();

/** Counts `count` events of one burst; true when the first of them is mailed now. */
function noteEvents(db: Kysely<Database>, dialect: Dialect, input: MailEvent, count: number): Promise<boolean> {
  // On SQLite the statements share the commit of the other writes of their turn (an alert's
  // receipt follows its alert): a commit of their own cost more than they did.
  return groupsWrites(dialect)
    ? inGroupedTransaction(db, (trx) => noteIn(trx, dialect, input, count))
    : noteIn(db, dialect, input, count);
}

async function noteIn(db: Kysely<Database>, dialect: Dialect, input: MailEvent, count: number): Promise<boolean> {
  const { kind, address, userId, now } = input;
  const noted = await noteBurstEvents(db, dialect, { ...input, ...momentsAt(now), count });
  const firstSends = noted !== undefined && Number(noted.pending) === 0;
  // Pending events count themselves; the others wait for a summary, the first of them enqueues its job.
  const gathered = noted === undefined ? count : firstSends ? count - 1 : 0;
  if (gathered === 0) return firstSends;
  const enqueueSummary = async (trx: Kysely<Database>) => {
    const burst = await gatherPending(trx, { kind, address, userId, gathered, now });
    const spaced = Number(burst.last_mail_at ?? now) + MAIL_BURST.spacingMs;
    const dayOver = Number(burst.day_started_at) + DAY;
    const dueAt = Number(burst.day_count) >= MAIL_BURST.perDay && dayOver > spaced ? dayOver : spaced;
    // A summary already waiting keeps its time; one being sent now gets a next turn for this event.
    await enqueue(trx, { kind: 'mail-summary', subject: burst.id, dueAt, now }, 'keep');
  };
  await inTransaction(db, enqueueSummary);
  return firstSends;
}
