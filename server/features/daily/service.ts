import type { DailyOkAnswer, DailySettings, DailyView } from '../../../common/api/daily.js';
import { firstDueAfter, nextDueAt } from '../../../common/daily-schedule.js';
import type { Db, User } from '../../db/schema.js';
import { cancelJob, enqueue } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { openAlertRows } from '../alerts/index.js';
import { subscriptionProfile } from '../billing/index.js';
import { resolveAlert } from '../live/index.js';
import { dailyOf, recordSign, saveSchedule, spendLink } from './repository.js';
import { dailyView, scheduleOf } from './schedule.js';

export type DailyDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'jobs' | 'dialect'>;

const PREMIUM_ONLY = 'The daily check-in comes with Premium (and its trial).';

/** Whether the owner's plan carries the daily check-in now: Premium or the trial. */
export async function hasDailyPlan(deps: Pick<Deps, 'db' | 'config'>, user: User, now: number): Promise<boolean> {
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  return profile.plan === 'premium' || profile.is_in_trial;
}

/** The owner's daily check-in as the API shows it: `paused` while their plan lacks it. */
export async function dailyFor(deps: Pick<Deps, 'db' | 'clock' | 'config'>, user: User): Promise<DailyView> {
  const now = deps.clock.now();
  const row = await dailyOf(deps.db, user.id);
  const lapsed = row?.enabled === 1 && !(await hasDailyPlan(deps, user, now));
  return dailyView(row, user, now, lapsed);
}

/**
 * Sets the owner's schedule (Premium or the trial: 402 otherwise). Setting it is a sign of life;
 * the first check-in is due at the next `time` on the owner's clock. Its job is written in the same transaction, or
 * removed when the schedule is turned off.
 */
export async function setDaily(deps: DailyDeps, user: User, settings: DailySettings): Promise<DailyView> {
  const now = deps.clock.now();
  if (settings.enabled && !(await hasDailyPlan(deps, user, now))) {
    throw detailError(402, PREMIUM_ONLY, 'subscription_required');
  }
  await deps.db.transaction().execute(async (trx) => {
    const fields = {
      enabled: settings.enabled ? 1 : 0,
      time: settings.time,
      every_days: settings.every_days,
      grace_minutes: settings.grace_minutes,
      paused_until: settings.paused_until,
      anchor_at: now,
      last_ok_at: now,
      reminded_due_at: null,
      link_hash: null,
      link_expires_at: null,
      updated_at: now,
    };
    const next = settings.enabled ? firstDueAfter(scheduleOf(fields, user), now) : null;
    await saveSchedule(trx, user.id, { ...fields, next_due_at: next }, now);
    if (next === null) await cancelJob(trx, 'daily', user.id);
    else await enqueue(trx, { kind: 'daily', subject: user.id, dueAt: next, now });
  });
  return dailyFor(deps, user);
}

/**
 * A sign of life at `at` (an "I'm OK", a queued one counted at the time it was tapped, or an
 * alert or check-in the owner sent): the next due date counts from it, the reminder's link is
 * spent, and the job moves to the new due time, all in one transaction. An earlier sign
 * than the one recorded changes nothing. With `linkHash` (the e-mail's link) it happens only if
 * that link is still live, spent in the same transaction: both or neither. False when it did not.
 */
export async function recordSignOfLife(
  deps: Pick<Deps, 'db' | 'clock' | 'dialect'>,
  user: User,
  at: number,
  linkHash?: string,
): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx: Db) => {
    if (linkHash !== undefined) {
      if (!(await spendLink(trx, user.id, linkHash, now))) return false;
    }
    // Locked until commit: two signs at once on PostgreSQL would otherwise both read the old
    // anchor and the later commit could move it back (SQLite's single writer already serialises).
    const row = await dailyOf(trx, user.id, deps.dialect === 'postgres');
    if (!row) return false;
    const anchor = Math.max(Number(row.anchor_at), at);
    const lastOk = Math.max(Number(row.last_ok_at ?? 0), at);
    const next = row.enabled ? nextDueAt(scheduleOf(row, user), anchor) : null;
    await recordSign(trx, user.id, { anchor, lastOk, next, now });
    if (next !== null) await enqueue(trx, { kind: 'daily', subject: user.id, dueAt: next, now });
    return true;
  });
}

/**
 * "I'm OK today" at `at` (never ahead of the server's clock), answered with the new schedule. The
 * owner is fine: the open alert a missed daily check-in raised ends too, as "I'm safe" ends it
 * (its calls cancelled, and with `notify` the all-clear to each contact).
 */
export async function dailyOk(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'dialect' | 'dispatcher' | 'liveHub'>,
  user: User,
  request: { at: number | null; notify: boolean },
): Promise<DailyOkAnswer> {
  const now = deps.clock.now();
  await recordSignOfLife(deps, user, Math.min(request.at ?? now, now));
  // Every open one, however many alerts came after it: the link cannot bury it under newer ones.
  const missed = await openAlertRows(deps, user.id, { reason: 'missed_daily' });
  let queued = 0;
  for (const alert of missed) queued += (await resolveAlert(deps, { user, alert }, request.notify)).all_clear_queued;
  return { ...(await dailyFor(deps, user)), alerts_ended: missed.length, all_clear_queued: queued };
}
