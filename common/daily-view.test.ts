import { describe, expect, it } from 'vitest';
import type { DailyView } from './api/daily.js';
import { OK_AHEAD_MS } from './daily-schedule.js';
import { alertsAt, calendarText, okOffered, okToday } from './daily-view.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-10T09:00:00Z');
const view = (fields: Partial<DailyView>): DailyView => ({
  enabled: true,
  time: '10:00',
  every_days: 1,
  grace_minutes: 60,
  paused_until: null,
  status: 'waiting',
  next_due_at: new Date(NOW + HOUR).toISOString(),
  last_ok_at: null,
  alert_id: null,
  ...fields,
});

// One rule for both screens (the home page and the emergency page), the server's own window.
describe('okOffered', () => {
  it('offers "I’m OK today" only within the window the server counts it for', () => {
    const at = (ms: number) => view({ next_due_at: new Date(NOW + ms).toISOString() });
    expect(okOffered(at(OK_AHEAD_MS), NOW)).toBe(true);
    expect(okOffered(at(OK_AHEAD_MS + 60_000), NOW)).toBe(false);
    expect(okOffered(at(23 * HOUR), NOW)).toBe(false);
    expect(okOffered(view({ status: 'due' }), NOW)).toBe(true);
    expect(okOffered(view({ status: 'missed' }), NOW)).toBe(true);
    expect(okOffered(view({ status: 'paused' }), NOW)).toBe(false);
    expect(okOffered(view({ enabled: false, status: 'off' }), NOW)).toBe(false);
  });
});

describe('alertsAt', () => {
  it('is the due time plus the grace while due, and nothing otherwise', () => {
    expect(alertsAt(view({ status: 'due', next_due_at: new Date(NOW).toISOString(), grace_minutes: 45 }))).toBe(
      NOW + 45 * 60_000,
    );
    expect(alertsAt(view({ status: 'waiting' }))).toBeNull();
  });
});

describe('okToday', () => {
  it('is the last sign of life when it fell on the owner’s today, on their clock', () => {
    // 23:30 in Lisbon on the 9th is the 10th in Tokyo.
    const late = Date.parse('2026-03-09T23:30:00Z');
    const last = view({ last_ok_at: new Date(late).toISOString() });
    expect(okToday(last, NOW, 'Europe/Lisbon')).toBeNull();
    expect(okToday(last, NOW, 'Asia/Tokyo')).toBe(late);
    expect(okToday(view({ last_ok_at: null }), NOW, 'Europe/Lisbon')).toBeNull();
  });
});

describe('calendarText', () => {
  it('writes a pause’s end as the locale writes dates', () => {
    expect(calendarText('2026-12-10', 'pt-PT')).toBe('10/12/2026');
    expect(calendarText('2026-12-10', 'en-GB')).toBe('10/12/2026');
    expect(calendarText('not a date', 'pt-PT')).toBe('not a date');
  });
});
