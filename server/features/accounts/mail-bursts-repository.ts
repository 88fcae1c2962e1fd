import { type ExpressionBuilder, expressionBuilder, type Kysely, sql } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Dialect } from '../../db/index.js';
import type { Database, Db, MailBurstKind } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { DAY } from '../../lib/time.js';

// The statements of the e-mail bursts (mail-bursts.ts) and their summaries (mail-summaries.ts).

/** One event of a burst: its kind, the address it mails, whose it is, when. */
export type MailEvent = {
  kind: MailBurstKind;
  address: string;
  userId: string;
  now: number;
};

type Row = ExpressionBuilder<Database, 'mail_bursts'>;

// Columns named with their table: an upsert's update also sees the row it would have inserted.
const DAY_STARTED = sql.ref('mail_bursts.day_started_at');
const DAY_COUNT = sql.ref('mail_bursts.day_count');

/** The moments a burst's conditions compare with (now, a day ago, one spacing ago), and the day's cap. */
export type Moments = { now: number; dayAgo: number; spacedAgo: number; perDay: number };

/** The day's counter moved on by one mail: a new 24 hours start when the last ones are over. */
export const countMail = ({ now, dayAgo }: Moments) => ({
  day_count: sql<number>`case when ${DAY_STARTED} <= ${dayAgo} then 1 else ${DAY_COUNT} + 1 end`,
  day_started_at: sql<number>`case when ${DAY_STARTED} <= ${dayAgo} then ${now} else ${DAY_STARTED} end`,
});

/** The day's cap is reached (and its 24 hours are not over). */
export const capped = (eb: Row, { dayAgo, perDay }: Moments) =>
  eb.and([eb('mail_bursts.day_count', '>=', perDay), eb('mail_bursts.day_started_at', '>', dayAgo)]);

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
    const moments = {
      now: value('now'),
      dayAgo: value('dayAgo'),
      spacedAgo: value('spacedAgo'),
      perDay: value('perDay'),
    };
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
 * Counts `count` events of one burst in one statement (`noteUpsert`): answers the row's pending
 * events after it (0: the first event's mail goes now), or undefined when the burst waits for
 * neither.
 */
export async function noteBurstEvents(
  db: Kysely<Database>,
  dialect: Dialect,
  input: MailEvent & Moments & { count: number },
): Promise<{ pending: number } | undefined> {
  const [noted] = await noteUpsert(db, dialect, { ...input, id: newId() });
  return noted;
}

/** Adds `gathered` events to the burst's pending ones; answers the burst's row as its summary's job needs it. */
export function gatherPending(
  db: Db,
  burst: { kind: MailBurstKind; address: string; userId: string; gathered: number; now: number },
) {
  return db
    .updateTable('mail_bursts')
    .set({
      user_id: burst.userId,
      pending: sql<number>`pending + ${burst.gathered}`,
      pending_since: sql<number>`coalesce(pending_since, ${burst.now})`,
    })
    .where('kind', '=', burst.kind)
    .where('address', '=', burst.address)
    .returning(['id', 'last_mail_at', 'day_count', 'day_started_at'])
    .executeTakeFirstOrThrow();
}

/**
 * Takes the burst's pending events for its summary (with those of a summary whose sender died
 * mid-send) and counts the mail; undefined when there is nothing to tell or the day's cap holds it.
 */
export function takeSummary(db: Db, id: string, moments: Moments) {
  // In SQL every right-hand side reads the row as it was: the pending count moves over whole.
  return db
    .updateTable('mail_bursts')
    .set({
      claimed_count: sql<number>`claimed_count + pending`,
      claimed_since: sql<number>`coalesce(claimed_since, pending_since)`,
      pending: 0,
      pending_since: null,
      last_mail_at: moments.now,
      ...countMail(moments),
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('pending', '>', 0), eb('claimed_count', '>', 0)]))
    .where((eb) => eb.not(capped(eb, moments)))
    .returningAll()
    .executeTakeFirst();
}

/** A burst's row. */
export function burstById(db: Db, id: string) {
  return db.selectFrom('mail_bursts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The summary went out (or had no one to go to). */
export async function finishSummary(db: Db, id: string): Promise<void> {
  await db.updateTable('mail_bursts').set({ claimed_count: 0, claimed_since: null }).where('id', '=', id).execute();
}

/** The summary could not be sent: its events go back to pending, for the job's next try. */
export async function failSummary(db: Db, id: string): Promise<void> {
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
