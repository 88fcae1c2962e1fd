import { type ExpressionBuilder, expressionBuilder, type Kysely, sql } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.js';
import { groupsWrites, inGroupedTransaction, inTransaction } from '../../db/grouped-transactions.js';
import type { Dialect } from '../../db/index.js';
import type { Database, MailBurstKind } from '../../db/schema.js';
import { enqueue } from '../../jobs/index.js';
import { nextTurn } from '../../lib/background.js';
import { newId } from '../../lib/ids.js';
import { DAY, MINUTE } from '../../lib/time.js';

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

type Row = ExpressionBuilder<Database, 'mail_bursts'>;

// Columns named with their table: an upsert's update also sees the row it would have inserted.
const DAY_STARTED = sql.ref('mail_bursts.day_started_at');
const DAY_COUNT = sql.ref('mail_bursts.day_count');

/** The moments a burst's conditions compare with: now, a day ago, one spacing ago. */
export type Moments = { now: number; dayAgo: number; spacedAgo: number };
export const momentsAt = (now: number): Moments => ({ now, dayAgo: now - DAY, spacedAgo: now - MAIL_BURST.spacingMs });

/** The day's counter moved on by one mail: a new 24 hours start when the last ones are over. */
export const countMail = ({ now, dayAgo }: Moments) => ({
  day_count: sql<number>`case when ${DAY_STARTED} <= ${dayAgo} then 1 else ${DAY_COUNT} + 1 end`,
  day_started_at: sql<number>`case when ${DAY_STARTED} <= ${dayAgo} then ${now} else ${DAY_STARTED} end`,
});

/** The day's cap is reached (and its 24 hours are not over). */
export const capped = (eb: Row, { dayAgo }: Moments) =>
  eb.and([eb('mail_bursts.day_count', '>=', MAIL_BURST.perDay), eb('mail_bursts.day_started_at', '>', dayAgo)]);

/** The burst's row, as it is, lets this event's mail go now: nothing pending, spaced, not capped. */
function firstOfBurst(moments: Moments) {
  const eb = expressionBuilder<Database, 'mail_bursts'>();
  return eb.and([
    eb('mail_bursts.pending', '=', 0),
    eb('mail_bursts.claimed_count', '=', 0),
    eb.or([eb('mail_bursts.last_mail_at', 'is', null), eb('mail_bursts.last_mail_at', '<=', moments.spacedAgo)]),
    eb.not(capped(eb, moments)),
  ]);
}

/**
 * One statement for `count` events of one burst: a new burst starts counted, and so does a burst
 * whose spacing is over (nothing pending, not capped): the first event's mail goes now, and the
 * row keeps nothing pending (the others, if any, are gathered after it). Else, when events are
 * already pending, all of them only add themselves to the count; no row when the burst is waiting
 * for neither. Built once (an alert's receipt runs it with every alert: building it each time
 * cost more than running it).
 */
const noteUpsert = compiledOnce<MailEvent & Moments & { id: string; count: number }, { pending: number }>(
  (db, value) => {
    const moments = { now: value('now'), dayAgo: value('dayAgo'), spacedAgo: value('spacedAgo') };
    const first = firstOfBurst(moments);
    const counted = countMail(moments);
    return db
      .insertInto('mail_bursts')
      .values({
        id: value('id'),
        kind: value('kind'),
        address: value('address'),
        user_id: value('userId'),
        last_mail_at: value('now'),
        pending: 0,
        pending_since: null,
        claimed_count: 0,
        claimed_since: null,
        day_started_at: value('now'),
        day_count: 1,
      })
      .onConflict((oc) =>
        oc
          .columns(['kind', 'address'])
          .doUpdateSet({
            user_id: value('userId'),
            last_mail_at: sql<number>`case when ${first} then ${value('now')} else mail_bursts.last_mail_at end`,
            day_count: sql<number>`case when ${first} then ${counted.day_count} else ${DAY_COUNT} end`,
            day_started_at: sql<number>`case when ${first} then ${counted.day_started_at} else ${DAY_STARTED} end`,
            pending: sql<number>`mail_bursts.pending + case when ${first} then 0 else ${value('count')} end`,
          })
          .where((eb) => eb.or([first, eb('mail_bursts.pending', '>', 0)])),
      )
      .returning('pending');
  },
);

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

type MailEvent = {
  kind: MailBurstKind;
  address: string;
  userId: string;
  now: number;
};

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
  const [noted] = await noteUpsert(db, dialect, { ...input, ...momentsAt(now), id: newId(), count });
  const firstSends = noted !== undefined && Number(noted.pending) === 0;
  // Pending events count themselves; the others wait for a summary, the first of them enqueues its job.
  const gathered = noted === undefined ? count : firstSends ? count - 1 : 0;
  if (gathered === 0) return firstSends;
  const enqueueSummary = async (trx: Kysely<Database>) => {
    const burst = await trx
      .updateTable('mail_bursts')
      .set({
        user_id: userId,
        pending: sql<number>`pending + ${gathered}`,
        pending_since: sql<number>`coalesce(pending_since, ${now})`,
      })
      .where('kind', '=', kind)
      .where('address', '=', address)
      .returning(['id', 'last_mail_at', 'day_count', 'day_started_at'])
      .executeTakeFirstOrThrow();
    const spaced = Number(burst.last_mail_at ?? now) + MAIL_BURST.spacingMs;
    const dayOver = Number(burst.day_started_at) + DAY;
    const dueAt = Number(burst.day_count) >= MAIL_BURST.perDay && dayOver > spaced ? dayOver : spaced;
    // A summary already waiting keeps its time; one being sent now gets a next turn for this event.
    await enqueue(trx, { kind: 'mail-summary', subject: burst.id, dueAt, now }, 'keep');
  };
  await inTransaction(db, enqueueSummary);
  return firstSends;
}
