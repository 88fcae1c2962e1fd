import { sql } from 'kysely';
import { CHECKIN_WRONG_PINS } from '../../../common/constants.js';
import type { Db } from '../../db/schema.js';
import { enqueue } from '../../jobs/index.js';
import { HOUR } from '../../lib/time.js';

/**
 * The owner's PIN answers of the hour (`checkin_pin_tries`): each takes a place before its hash
 * is checked (`reading`), and keeps it as a wrong PIN or gives it back as a right one. Five
 * places, wrong or being read, lock PIN answers until the hour from the first is over; so at
 * most five wrong PINs are ever read in an hour, however many answers arrive at once.
 */

/** An answer's place: the hour it was taken in, or, refused, when the lock ends. */
export type PinPlace = { window: number } | { lockedUntil: number };

const started = sql.ref('checkin_pin_tries.window_started_at');
const wrong = sql.ref('checkin_pin_tries.wrong_pins');
const reading = sql.ref('checkin_pin_tries.reading');
/** One fewer being read (never below none: a place is given back once). */
const readDone = sql<number>`case when ${reading} > 0 then ${reading} - 1 else 0 end`;

/** When the owner's current hour of PIN answers began, if they have one. */
export async function pinWindowStart(db: Db, userId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('checkin_pin_tries')
    .select('window_started_at')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row ? Number(row.window_started_at) : undefined;
}

/**
 * Takes a place for one answer in one conditional statement, so answers at once cannot all pass
 * a read of the count: refused while five are wrong or being read in the hour. A new hour starts
 * when the last one is over or nothing is counted in it.
 */
export async function takePinPlace(db: Db, userId: string, now: number): Promise<PinPlace> {
  const fresh = sql<boolean>`(${started} <= ${now - HOUR} or (${wrong} = 0 and ${reading} = 0))`;
  const row = await db
    .insertInto('checkin_pin_tries')
    .values({ user_id: userId, window_started_at: now, wrong_pins: 0, reading: 1 })
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({
          wrong_pins: sql<number>`case when ${fresh} then 0 else ${wrong} end`,
          reading: sql<number>`case when ${fresh} then 1 else ${reading} + 1 end`,
          window_started_at: sql<number>`case when ${fresh} then ${now} else ${started} end`,
        })
        .where(sql<boolean>`${fresh} or ${wrong} + ${reading} < ${CHECKIN_WRONG_PINS}`),
    )
    .returning('window_started_at')
    .executeTakeFirst();
  if (row) return { window: Number(row.window_started_at) };
  return { lockedUntil: ((await pinWindowStart(db, userId)) ?? now) + HOUR };
}

/** Gives a right (or duress) PIN's place back: it is not counted as wrong. */
export async function givePinPlaceBack(db: Db, userId: string, window: number): Promise<void> {
  await db
    .updateTable('checkin_pin_tries')
    .set({ reading: readDone })
    .where('user_id', '=', userId)
    .where('window_started_at', '=', window)
    .execute();
}

/**
 * Keeps a wrong PIN's place as wrong; the fifth of the hour writes the lock's e-mail job with it.
 * The wrong PINs of the hour after it (none when a new hour began meanwhile), and the lock's end.
 */
export async function keepPinPlaceWrong(db: Db, userId: string, window: number, now: number) {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('checkin_pin_tries')
      .set({ reading: readDone, wrong_pins: sql<number>`${wrong} + 1` })
      .where('user_id', '=', userId)
      .where('window_started_at', '=', window)
      .returning('wrong_pins')
      .executeTakeFirst();
    const count = row ? Number(row.wrong_pins) : 0;
    if (count === CHECKIN_WRONG_PINS)
      await enqueue(trx, { kind: 'checkin-pin-lock', subject: userId, dueAt: now, now });
    return { wrong: count, until: window + HOUR };
  });
}
