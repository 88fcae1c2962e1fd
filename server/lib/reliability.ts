import { MINUTE, SECOND } from './time.js';

/**
 * The numbers later work depends on, in one place, each with its unit: how long a process holds
 * a job before another may take it over, how often it renews that hold, how it backs off and
 * when it gives up, and how often its clock is set to the database's.
 */

/** A claimed job is another process's to take once this long has passed without a renewal (ms). */
export const JOB_LEASE_MS = 6 * SECOND;
/** A running job's lease is renewed this often (ms): three renewals fit in one lease. */
export const JOB_LEASE_RENEW_MS = 2 * SECOND;
/** The wait after a job's first failure (ms), doubled after each further one with ±20 % jitter… */
export const JOB_RETRY_MS = 5 * SECOND;
/** …up to this (ms). */
export const JOB_MAX_RETRY_MS = 5 * MINUTE;
/** Runs of a job before it is parked as failed, where operators see it (about 40 minutes of retries). */
export const JOB_MAX_ATTEMPTS = 12;
/** Jobs one process runs at once, of the kinds without a concurrency of their own (the SMS have theirs, `SMS_CONCURRENCY`). */
export const JOB_BATCH = 20;
/** How often each process sets its clock to the database's again (ms). */
export const CLOCK_SYNC_MS = 30 * SECOND;
/** An offset from the database's clock beyond this is logged (ms): the machine's clock needs care. */
export const CLOCK_OFF_WARNING_MS = SECOND;

/** An SMS send the provider has not answered in this long counts as failed, and is retried after asking the provider (ms). */
export const SMS_SEND_TIMEOUT_MS = 30 * SECOND;
/** Asking the provider whether it already holds an SMS whose send went unanswered gives up after this (ms). */
export const SMS_LOOKUP_TIMEOUT_MS = 15 * SECOND;
/** Attempts of one SMS before it fails for good (about 15 minutes of retries). */
export const SMS_MAX_ATTEMPTS = 7;
/** The wait after an SMS's first failure (ms), doubled after each further one with ±20 % jitter… */
export const SMS_RETRY_MS = 15 * SECOND;
/** …up to this (ms). */
export const SMS_MAX_RETRY_MS = 10 * MINUTE;

/** Attempts at placing one escalation call before it is marked failed (5 s doubling: about 2.5 minutes of retries). */
export const CALL_MAX_ATTEMPTS = 6;
/** A call the voice provider has not answered in this long counts as a failed attempt, looked up before the next (ms). */
export const CALL_PLACE_TIMEOUT_MS = 30 * SECOND;
/** Asking the voice provider whether it already holds a call whose earlier attempt failed gives up after this (ms). */
export const CALL_LOOKUP_TIMEOUT_MS = 15 * SECOND;

/** Each backoff's wait is its plain doubling times a factor drawn in [1 − this, 1 + this). */
export const BACKOFF_JITTER = 0.2;

/**
 * The wait before the next run once `attempt` runs have failed (ms): `base` doubled after each
 * further failure up to `max`, with ±20 % jitter (`random` in [0, 1)), so that the jobs a single
 * outage failed together are not all retried in the same second.
 */
export function backoffMs(attempt: number, base: number, max: number, random: () => number): number {
  const plain = Math.min(base * 2 ** (attempt - 1), max);
  return Math.round(plain * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * random()));
}
