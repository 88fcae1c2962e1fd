import { describe, expect, it } from 'vitest';
import {
  firstDueAfter,
  isPaused,
  localDate,
  nextDueAt,
  onOwnersClock,
  zonedInstant,
} from '../../common/daily-schedule.js';

const LISBON = 'Europe/Lisbon';
const iso = (at: number) => new Date(at).toISOString();

// The daily check-in is due at a time on the owner's clock: a daylight-saving change moves
// the instant, never the time the owner reads.
describe('daily check-in schedule', () => {
  it('is due at the owner’s time on the date every_days after the last sign of life', () => {
    const schedule = { time: '09:30', everyDays: 1, pausedUntil: null, timeZone: LISBON };
    // Winter, Lisbon on UTC: a check-in at 08:00 counts for today, the next is tomorrow.
    expect(iso(nextDueAt(schedule, Date.parse('2026-01-14T08:00:00Z')))).toBe('2026-01-15T09:30:00.000Z');
    // Summer, Lisbon on UTC+1.
    expect(iso(nextDueAt(schedule, Date.parse('2026-07-14T12:00:00Z')))).toBe('2026-07-15T08:30:00.000Z');
    // 23:30 UTC on 14 July is already the 15th in Lisbon.
    expect(iso(nextDueAt(schedule, Date.parse('2026-07-14T23:30:00Z')))).toBe('2026-07-16T08:30:00.000Z');
    expect(iso(nextDueAt({ ...schedule, everyDays: 3 }, Date.parse('2026-01-14T08:00:00Z')))).toBe(
      '2026-01-17T09:30:00.000Z',
    );
  });

  it('counts a check-in in the 12 hours before the next day’s due time for that day (23:57 for 00:02)', () => {
    const schedule = { time: '00:02', everyDays: 1, pausedUntil: null, timeZone: 'Europe/Lisbon' };
    const late = Date.parse('2026-11-27T23:57:00Z');
    expect(new Date(nextDueAt(schedule, late)).toISOString()).toBe('2026-11-29T00:02:00.000Z');
    // Earlier than that it counts for its own day only.
    const evening = { ...schedule, time: '10:00' };
    expect(new Date(nextDueAt(evening, Date.parse('2026-11-27T21:00:00Z'))).toISOString()).toBe(
      '2026-11-28T10:00:00.000Z',
    );
    expect(new Date(nextDueAt(evening, Date.parse('2026-11-27T22:30:00Z'))).toISOString()).toBe(
      '2026-11-29T10:00:00.000Z',
    );
  });

  it('keeps the owner’s time across Lisbon’s spring change (29 March 2026, 01:00 → 02:00)', () => {
    const schedule = { time: '09:00', everyDays: 1, pausedUntil: null, timeZone: LISBON };
    // Checked in on Saturday (UTC+0): Sunday's 09:00 is already summer time, 08:00 UTC.
    expect(iso(nextDueAt(schedule, Date.parse('2026-03-28T09:00:00Z')))).toBe('2026-03-29T08:00:00.000Z');
    // A time the change skips falls as many minutes after it.
    expect(iso(zonedInstant('2026-03-29', '01:30', LISBON))).toBe('2026-03-29T01:30:00.000Z');
    expect(localDate(zonedInstant('2026-03-29', '01:30', LISBON), LISBON)).toBe('2026-03-29');
  });

  it('keeps the owner’s time across Lisbon’s autumn change (25 October 2026, 02:00 → 01:00)', () => {
    const schedule = { time: '09:00', everyDays: 1, pausedUntil: null, timeZone: LISBON };
    expect(iso(nextDueAt(schedule, Date.parse('2026-10-24T07:00:00Z')))).toBe('2026-10-25T09:00:00.000Z');
    // 01:30 happens twice: the first (still summer time, 00:30 UTC).
    expect(iso(zonedInstant('2026-10-25', '01:30', LISBON))).toBe('2026-10-25T00:30:00.000Z');
  });

  it('in a zone without daylight saving (Asia/Tokyo, UTC+9) and without a zone (UTC)', () => {
    const schedule = { time: '07:15', everyDays: 2, pausedUntil: null, timeZone: 'Asia/Tokyo' };
    expect(iso(nextDueAt(schedule, Date.parse('2026-03-28T02:00:00Z')))).toBe('2026-03-29T22:15:00.000Z');
    expect(iso(nextDueAt({ ...schedule, timeZone: null }, Date.parse('2026-03-28T02:00:00Z')))).toBe(
      '2026-03-30T07:15:00.000Z',
    );
  });

  it('skips the days of a pause and resumes on its date by itself', () => {
    const schedule = { time: '10:00', everyDays: 1, pausedUntil: '2026-08-20', timeZone: LISBON };
    const now = Date.parse('2026-08-10T12:00:00Z');
    expect(isPaused(schedule, now)).toBe(true);
    expect(iso(nextDueAt(schedule, now))).toBe('2026-08-20T09:00:00.000Z');
    expect(isPaused(schedule, Date.parse('2026-08-20T00:00:00Z'))).toBe(false);
    expect(isPaused({ ...schedule, pausedUntil: null }, now)).toBe(false);
  });

  it('is first due at the next time on the owner’s clock once set: today if still ahead, else tomorrow', () => {
    const schedule = { time: '10:00', everyDays: 3, pausedUntil: null, timeZone: LISBON };
    expect(iso(firstDueAfter(schedule, Date.parse('2026-07-14T07:00:00Z')))).toBe('2026-07-14T09:00:00.000Z');
    expect(iso(firstDueAfter(schedule, Date.parse('2026-07-14T09:00:00Z')))).toBe('2026-07-15T09:00:00.000Z');
    expect(iso(firstDueAfter({ ...schedule, pausedUntil: '2026-07-20' }, Date.parse('2026-07-14T07:00:00Z')))).toBe(
      '2026-07-20T09:00:00.000Z',
    );
  });

  it('shows a time on the owner’s clock, whatever the device’s zone, and the device’s for an unknown zone', () => {
    const at = Date.parse('2026-07-01T08:30:00Z');
    const options = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
    expect(onOwnersClock(at, 'en-GB', LISBON, options)).toBe('09:30');
    expect(onOwnersClock(new Date(at).toISOString(), 'en-GB', 'Asia/Tokyo', options)).toBe('17:30');
    const device = new Intl.DateTimeFormat('en-GB', options).format(at);
    expect(onOwnersClock(at, 'en-GB', 'Not/A_Zone', options)).toBe(device);
    expect(onOwnersClock(at, 'en-GB', null, options)).toBe(device);
  });
});
