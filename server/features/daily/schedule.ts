import type { DailyStatus, DailyView } from '../../../common/api/daily.js';
import { type DailySchedule, isPaused, nextDueAt } from '../../../common/daily-schedule.js';
import type { DailyCheckin, User } from '../../db/schema.js';
import { MINUTE } from '../../lib/time.js';

/** What the owner reads before setting anything. */
export const DAILY_DEFAULTS = { enabled: false, time: '10:00', every_days: 1, grace_minutes: 60, paused_until: null };

export const scheduleOf = (
  row: Pick<DailyCheckin, 'time' | 'every_days' | 'paused_until'>,
  user: Pick<User, 'time_zone'>,
): DailySchedule => ({
  time: row.time,
  everyDays: Number(row.every_days),
  pausedUntil: row.paused_until,
  timeZone: user.time_zone,
});

/** When the contacts are alerted if the owner has not checked in: the due time and the grace. */
export const alarmAt = (row: DailyCheckin, dueAt: number) => dueAt + Number(row.grace_minutes) * MINUTE;

/**
 * The next due time after a server down for days: the first whose grace is not over yet, and
 * the last one missed before it (the one alert such an outage sends), null when none was.
 */
export function caughtUp(row: DailyCheckin, user: Pick<User, 'time_zone'>, dueAt: number, now: number) {
  const schedule = scheduleOf(row, user);
  let missed: number | null = null;
  let next = dueAt;
  while (alarmAt(row, next) <= now) {
    missed = next;
    next = nextDueAt(schedule, next);
  }
  return { missed, next };
}

function statusOf(row: DailyCheckin, user: Pick<User, 'time_zone'>, now: number, lapsed: boolean): DailyStatus {
  if (!row.enabled) return 'off';
  // Kept as set, silent until the plan carries it again (jobs.ts skips its due times meanwhile).
  if (lapsed || isPaused(scheduleOf(row, user), now)) return 'paused';
  if (row.next_due_at !== null && now >= Number(row.next_due_at)) return 'due';
  // Missed, and no sign of life since: the alert is the news until the next due time.
  if (row.missed_due_at !== null && Number(row.anchor_at) === Number(row.missed_due_at)) return 'missed';
  return 'waiting';
}

const isoOrNull = (at: number | null) => (at === null ? null : new Date(Number(at)).toISOString());

export function dailyView(
  row: DailyCheckin | undefined,
  user: Pick<User, 'time_zone'>,
  now: number,
  lapsed = false,
): DailyView {
  if (!row) return { ...DAILY_DEFAULTS, status: 'off', next_due_at: null, last_ok_at: null, alert_id: null };
  const status = statusOf(row, user, now, lapsed);
  return {
    enabled: row.enabled === 1,
    time: row.time,
    every_days: Number(row.every_days),
    grace_minutes: Number(row.grace_minutes),
    paused_until: row.paused_until,
    status,
    next_due_at: row.enabled ? isoOrNull(row.next_due_at) : null,
    last_ok_at: isoOrNull(row.last_ok_at),
    alert_id: status === 'missed' ? row.alert_id : null,
  };
}
