import { CHECKIN_WRONG_PINS } from '../../../common/constants.js';
import type { Checkin, User } from '../../db/schema.js';
import { enqueue, type JobHandler } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { HOUR, SECOND } from '../../lib/time.js';
import { findById, verifyPassword } from '../accounts/index.js';
import { givePinPlaceBack, keepPinPlaceWrong, pinWindowStart, takePinPlace } from './pin-tries-repository.js';
import { pinLockMail } from './reminder.js';
import { countWrongPin } from './repository.js';

/**
 * The check-in PIN and duress PIN, asked (with the owner's proof) to end or extend a check-in.
 * Wrong PINs are counted per owner, not per check-in, since anyone holding the link can start
 * check-ins: the fifth within an hour of the first, on any of the owner's check-ins, fires the
 * check-in it was given to, and PIN answers are refused, unread, until that hour is over. The
 * owner is mailed once when the lock begins.
 */

const WRONG_PIN = 'Wrong PIN.';
const LOCKED = 'Too many wrong PINs within the hour: PINs are refused until it is over.';

export type PinDeps = Pick<Deps, 'db' | 'clock' | 'jobs'>;

/** The answer while PINs are locked: its end in `retry_after` (seconds) and Retry-After. */
const pinLocked = (until: number, now: number) => {
  const seconds = String(Math.max(1, Math.ceil((until - now) / SECOND)));
  return detailError(403, LOCKED, 'pin_locked', { 'retry-after': seconds }, { retry_after: Number(seconds) });
};

/**
 * Checks the PIN given for `checkin`: true for the duress PIN, false for the right one (or none
 * set). Both hashes are checked every time, so the work is the same whichever PIN it is. A wrong
 * PIN is 403 `wrong_pin`, the owner's fifth within the hour `pin_locked` (the check-in fires).
 * Each answer takes its place in the owner's count before its hash is read (pin-tries-repository.ts), a
 * right or duress PIN giving it back: past five places, `pin_locked` unread. `settled` answers a
 * check-in that ended meanwhile.
 */
export async function checkPin(
  deps: PinDeps,
  user: User,
  checkin: Checkin,
  pin: string | null | undefined,
  settled: () => Promise<Error>,
): Promise<boolean> {
  const now = deps.clock.now();
  // The place is taken before the hash is read: answers sent at once cannot all be read.
  const place = user.checkin_pin_hash ? await takePinPlace(deps.db, user.id, now) : null;
  if (place && 'lockedUntil' in place) throw pinLocked(place.lockedUntil, now);
  const given = pin ?? '';
  const [right, duress] = await Promise.all([
    user.checkin_pin_hash ? verifyPassword(user.checkin_pin_hash, given) : Promise.resolve(true),
    user.duress_pin_hash && given ? verifyPassword(user.duress_pin_hash, given) : verifyPassword(undefined, given),
  ]);
  // With no PIN set every answer is right (and took no place).
  if (right || duress || !place) {
    if (place) await givePinPlaceBack(deps.db, user.id, place.window);
    return duress;
  }
  const owner = await keepPinPlaceWrong(deps.db, user.id, place.window, now);
  const locks = owner.wrong >= CHECKIN_WRONG_PINS;
  const wrong = await countWrongPin(deps.db, checkin.id, locks);
  if (wrong === null) throw await settled();
  if (wrong >= CHECKIN_WRONG_PINS) {
    await enqueue(deps.db, { kind: 'checkin', subject: checkin.id, dueAt: now, now });
    deps.jobs.kick();
  }
  if (locks) throw pinLocked(owner.until, now);
  throw detailError(403, WRONG_PIN, 'wrong_pin');
}

/** The PIN lock's job (`checkin-pin-lock`, subject the user's id): tells the owner, in their language, once per lock. */
export function pinLockJob(deps: Pick<Deps, 'db' | 'mail' | 'config'>): JobHandler {
  return async ({ subject }) => {
    const user = await findById(deps.db, subject);
    if (!user?.email || !user.email_verified) return;
    const started = await pinWindowStart(deps.db, user.id);
    if (started === undefined) return;
    await deps.mail.send(pinLockMail(user, started + HOUR, `${deps.config.APP_URL}/setup`));
  };
}
