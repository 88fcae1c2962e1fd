import { PENDING_ALERT_MAX_AGE_MS } from '../../common/constants.js';
import { HOUR, MINUTE } from './time.js';

/** How far a fix time may lie behind the server's clock: a press queued offline is replayed for up to 24 hours. */
export const FIX_MAX_AGE_MS = PENDING_ALERT_MAX_AGE_MS + HOUR;
/**
 * How far a fix time may lie ahead of the server's clock (a phone's clock a little fast). Kept
 * short: a fix dated ahead would otherwise pass for the newest until its date came.
 */
export const FIX_MAX_AHEAD_MS = 2 * MINUTE;

/**
 * The one rule for every fix time (the alert's and the live updates'): within
 * FIX_MAX_AGE_MS before and FIX_MAX_AHEAD_MS after the server's time. Returns the problem, or null.
 */
export function fixTimeProblem(ms: number, now: number): string | null {
  if (ms > now + FIX_MAX_AHEAD_MS) return "The fix time is in the future: check the phone's clock.";
  if (ms < now - FIX_MAX_AGE_MS) return 'The fix time is too old: send a current position.';
  return null;
}
