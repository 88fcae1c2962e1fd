/**
 * What the pages read from a daily check-in's status (common/api/daily.ts), the same on the home
 * page and the emergency page: when "I'm OK today" is offered, when the contacts are alerted
 * while a check-in is due, and whether the owner already checked in today. Pure and browser-safe.
 */
import type { DailyView } from './api/daily.js';
import { localDate, OK_AHEAD_MS, onOwnersClock } from './daily-schedule.js';

const MINUTE_MS = 60_000;

/** Whether "I'm OK today" is offered: due, missed, or the due time is within `OK_AHEAD_MS` (as the server counts it). */
export function okOffered(view: Pick<DailyView, 'enabled' | 'status' | 'next_due_at'>, now: number): boolean {
  if (!view.enabled) return false;
  if (view.status === 'due' || view.status === 'missed') return true;
  return view.status === 'waiting' && view.next_due_at !== null && Date.parse(view.next_due_at) - now <= OK_AHEAD_MS;
}

/** When the contacts are alerted if nobody checks in: the due time plus the grace, while due; else null. */
export function alertsAt(view: Pick<DailyView, 'status' | 'next_due_at' | 'grace_minutes'>): number | null {
  if (view.status !== 'due' || view.next_due_at === null) return null;
  return Date.parse(view.next_due_at) + view.grace_minutes * MINUTE_MS;
}

/** The last sign of life when it fell today on the owner's clock (their `time_zone`), else null. */
export function okToday(view: Pick<DailyView, 'last_ok_at'>, now: number, timeZone: string | null | undefined) {
  if (view.last_ok_at === null) return null;
  const at = Date.parse(view.last_ok_at);
  return localDate(at, timeZone) === localDate(now, timeZone) ? at : null;
}

/** A time of day ("18:18") on the owner's clock. */
export const clockText = (at: number | string, locale: string, timeZone: string | null | undefined) =>
  onOwnersClock(at, locale, timeZone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A calendar date ("YYYY-MM-DD", as a pause ends) as the locale writes dates: "10/12/2026". */
export function calendarText(date: string, locale: string): string {
  const at = Date.parse(`${date}T12:00:00Z`);
  if (Number.isNaN(at)) return date;
  return new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }).format(
    at,
  );
}
