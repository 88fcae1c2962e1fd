import { sql } from 'kysely';
import { CHECKIN_WRONG_PINS } from '../../../common/constants.js';
import type { Checkin, Db, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { HOUR, SECOND } from '../../lib/time.js';
import { setTimer, type TimerHandler } from '../../lib/timers.js';
import { verifyPassword } from '../accounts/passwords.js';
import { findById } from '../accounts/repository.js';
import { pinLockMail } from './reminder.js';
import { countWrongPin } from './repository.js';
import { CHECKIN_TIMER } from './timer.js';

/**
 * The check-in PIN and duress PIN, asked (with the owner's proof) to end or extend a check-in.
 * Wrong PINs are counted per owner, not per check-in, since anyone holding the link can start
 * check-ins: the fifth within an hour of the first, on any of the owner's check-ins, fires the
 * check-in it was given to, and PIN answers are refused, unread, until that hour is over. The
 * owner is mailed once when the lock begins.
 */

/** The timer that mails the owner when their PINs lock (one per lock, by the owner's id). */
export const PIN_LOCK_TIMER = 'checkin-pin-lock';

const WRONG_PIN = 'Wrong PIN.';
const LOCKED = 'Too many wrong PINs within the hour: PINs are refused until it is over.';

export type PinDeps = Pick<Deps, 'db' | 'clock' | 'timers'>;

/** The answer while PINs are locked: its end in `retry_after` (seconds) and Retry-After. */
const pinLocked = (until: number, now: number) => {
  const seconds = String(Math.max(1, Math.ceil((until - now) / SECOND)));
  return detailError(403, LOCKED, 'pin_locked', { 'retry-after': seconds }, { retry_after: Number(seconds) });
};

/** When the owner's PIN lock ends, or null when PINs are not locked now. */
async function lockedUntil(db: Db, userId: string, now: number): Promise<number | null> {
  const row = await db
    .selectFrom('checkin_pin_tries')
    .select(['window_started_at', 'wrong_pins'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row || Number(row.wrong_pins) < CHECKIN_WRONG_PINS) return null;
  const until = Number(row.window_started_at) + HOUR;
  return until > now ? until : null;
}

/**
 * Counts one wrong PIN against the owner, in one statement (a new hour starts from the first
 * wrong PIN after the last one ended); at the fifth, the lock's e-mail timer is set with it.
 */
async function countAgainstOwner(db: Db, userId: string, now: number) {
  const hourAgo = now - HOUR;
  const started = sql.ref('checkin_pin_tries.window_started_at');
  const count = sql.ref('checkin_pin_tries.wrong_pins');
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('checkin_pin_tries')
      .values({ user_id: userId, window_started_at: now, wrong_pins: 1 })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          wrong_pins: sql<number>`case when ${started} <= ${hourAgo} then 1 else ${count} + 1 end`,
          window_started_at: sql<number>`case when ${started} <= ${hourAgo} then ${now} else ${started} end`,
        }),
      )
      .returning(['wrong_pins', 'window_started_at'])
      .executeTakeFirstOrThrow();
    const wrong = Number(row.wrong_pins);
    if (wrong === CHECKIN_WRONG_PINS) await setTimer(trx, { kind: PIN_LOCK_TIMER, subject: userId, dueAt: now, now });
    return { wrong, until: Number(row.window_started_at) + HOUR };
  });
}

/**
 * Checks the PIN given for `checkin`: true for the duress PIN, false for the right one (or none
 * set). Both hashes are checked every time, so the work is the same whichever PIN it is. A wrong
 * PIN is 403 `wrong_pin`, the owner's fifth within the hour `pin_locked` (the check-in fires);
 * while locked, `pin_locked` before anything is read. `settled` answers a check-in that ended
 * meanwhile.
 */
export async function checkPin(
  deps: PinDeps,
  user: User,
  checkin: Checkin,
  pin: string | null | undefined,
  settled: () => Promise<Error>,
): Promise<boolean> {
  const now = deps.clock.now();
  if (user.checkin_pin_hash) {
    const until = await lockedUntil(deps.db, user.id, now);
    if (until !== null) throw pinLocked(until, now);
  }
  const given = pin ?? '';
  const [right, duress] = await Promise.all([
    user.checkin_pin_hash ? verifyPassword(user.checkin_pin_hash, given) : Promise.resolve(!user.checkin_pin_hash),
    user.duress_pin_hash && given ? verifyPassword(user.duress_pin_hash, given) : verifyPassword(undefined, given),
  ]);
  if (right || duress) return duress;
  const owner = await countAgainstOwner(deps.db, user.id, now);
  const locks = owner.wrong >= CHECKIN_WRONG_PINS;
  const wrong = await countWrongPin(deps.db, checkin.id, locks);
  if (wrong === null) throw await settled();
  if (wrong >= CHECKIN_WRONG_PINS) {
    await setTimer(deps.db, { kind: CHECKIN_TIMER, subject: checkin.id, dueAt: now, now });
    deps.timers.kick();
  }
  if (locks) throw pinLocked(owner.until, now);
  throw detailError(403, WRONG_PIN, 'wrong_pin');
}

/** The PIN lock's timer: tells the owner, in their language, once per lock. */
export function pinLockTimer(deps: Pick<Deps, 'db' | 'mail' | 'config'>): TimerHandler {
  return async ({ subject }) => {
    const user = await findById(deps.db, subject);
    if (!user?.email || !user.email_verified) return;
    const row = await deps.db
      .selectFrom('checkin_pin_tries')
      .select('window_started_at')
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    if (!row) return;
    await deps.mail.send(pinLockMail(user, Number(row.window_started_at) + HOUR, `${deps.config.APP_URL}/setup`));
  };
}
