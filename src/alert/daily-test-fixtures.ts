import type { DailyView } from '../../common/api/daily';

const HOUR = 3600_000;

/** A daily check-in as the server shows it: on, and due since half an hour, unless told otherwise. */
export const dailyView = (fields: Partial<DailyView> = {}): DailyView => ({
  enabled: true,
  time: '10:00',
  every_days: 1,
  grace_minutes: 60,
  paused_until: null,
  status: 'due',
  next_due_at: new Date(Date.now() - HOUR / 2).toISOString(),
  last_ok_at: null,
  alert_id: null,
  ...fields,
});
