/**
 * The daily check-in's calendar: when the next "I'm OK" is due, in the owner's time zone, right
 * across daylight-saving changes. Pure and browser-safe (Intl only): the server schedules with
 * it and the pages show the same times.
 */

const DAY_MS = 86_400_000;
/** How long before a due time "I'm OK" counts for it, and the pages offer it: 12 hours. */
export const OK_AHEAD_MS = 12 * 3_600_000;

/** What the schedule is made of. `time` is "HH:MM" on the owner's clock; `pausedUntil` a "YYYY-MM-DD" date or null. */
export interface DailySchedule {
  time: string;
  everyDays: number;
  pausedUntil: string | null;
  timeZone: string | null;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string): Intl.DateTimeFormat {
  let found = formats.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, found);
  }
  return found;
}

/** A zone Intl knows, else UTC (an owner without one, or one a runtime lacks). */
function zoneOf(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    format(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/** The wall clock of `at` in `zone`, read as if it were UTC (epoch ms). */
function wallClock(at: number, zone: string): number {
  const parts = format(zone).formatToParts(new Date(at));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
}

/** The calendar date ("YYYY-MM-DD") of `at` on the owner's clock. */
export function localDate(at: number, timeZone: string | null | undefined): string {
  return new Date(wallClock(at, zoneOf(timeZone))).toISOString().slice(0, 10);
}

/** `date` moved on by `days` calendar days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The instant the owner's clock shows `time` on `date`. A time the spring change skips (01:30
 * when 01:00 jumps to 02:00) is read with the offset before the change, so it falls as many
 * minutes after it (02:30); a time the autumn change shows twice is its first occurrence.
 */
export function zonedInstant(date: string, time: string, timeZone: string | null | undefined): number {
  const zone = zoneOf(timeZone);
  const wanted = Date.parse(`${date}T${time}:00Z`);
  const before = wanted - wallClock(wanted - DAY_MS, zone) + (wanted - DAY_MS);
  const after = wanted - wallClock(wanted + DAY_MS, zone) + (wanted + DAY_MS);
  const shown = [before, after].filter((at) => wallClock(at, zone) === wanted);
  return shown.length > 0 ? Math.min(...shown) : before;
}

/**
 * When the next check-in is due after the last sign of life (or missed day) at `anchorAt`:
 * `time` on the owner's date `everyDays` after the anchor's, or on the date the pause ends
 * (`pausedUntil`) when that is later. A check-in any time on a day counts for that day, and so
 * does one in the `OK_AHEAD_MS` before the next day's due time (23:57 for a check-in at 00:02).
 */
export function nextDueAt(schedule: DailySchedule, anchorAt: number): number {
  let day = localDate(anchorAt, schedule.timeZone);
  const tomorrow = addDays(day, 1);
  if (zonedInstant(tomorrow, schedule.time, schedule.timeZone) - anchorAt <= OK_AHEAD_MS) day = tomorrow;
  let date = addDays(day, schedule.everyDays);
  if (schedule.pausedUntil && date < schedule.pausedUntil) date = schedule.pausedUntil;
  return zonedInstant(date, schedule.time, schedule.timeZone);
}

/**
 * When a schedule just set is first due: `time` today on the owner's clock if it is still ahead,
 * else the next day's (never before the pause ends). Set at 09:00 to be due before 10:00, the
 * first check-in is today's.
 */
export function firstDueAfter(schedule: DailySchedule, at: number): number {
  let date = localDate(at, schedule.timeZone);
  if (schedule.pausedUntil && date < schedule.pausedUntil) date = schedule.pausedUntil;
  const today = zonedInstant(date, schedule.time, schedule.timeZone);
  return today > at ? today : zonedInstant(addDays(date, 1), schedule.time, schedule.timeZone);
}

/** Whether the schedule is paused at `now`: the owner's date is before the day it resumes. */
export function isPaused(schedule: Pick<DailySchedule, 'pausedUntil' | 'timeZone'>, now: number): boolean {
  return schedule.pausedUntil !== null && localDate(now, schedule.timeZone) < schedule.pausedUntil;
}

/**
 * A time as the owner reads it: on their clock (their `time_zone`, as the schedule counts), not
 * the device's, which may be elsewhere. The device's own when the zone is unknown or invalid.
 */
export function onOwnersClock(
  at: number | string,
  locale: string,
  timeZone: string | null | undefined,
  options: Intl.DateTimeFormatOptions,
): string {
  const date = new Date(at);
  try {
    return new Intl.DateTimeFormat(locale, { ...options, ...(timeZone ? { timeZone } : {}) }).format(date);
  } catch {
    return new Intl.DateTimeFormat(locale, options).format(date);
  }
}
