/**
 * The owner's daily check-in (features/daily/, migration 2026112812-daily-checkin): an "I'm OK"
 * due at `time` on their clock every `every_days` days, counted from `anchor_at` (the last sign
 * of life, or the last day missed); at `next_due_at` the owner is reminded, and `grace_minutes`
 * later the contacts are alerted.
 */
export interface DailyCheckinsTable {
  user_id: string;
  enabled: number;
  /** "HH:MM" in the owner's time zone. */
  time: string;
  every_days: number;
  grace_minutes: number;
  /** "YYYY-MM-DD": nothing is due before this date on the owner's clock. */
  paused_until: string | null;
  /** What the next due date counts from: enabling, the last sign of life, or the last day missed. */
  anchor_at: number;
  /** The last sign of life: an "I'm OK" (page, app, e-mail link), setting the schedule, an alert or check-in the owner sent. */
  last_ok_at: number | null;
  next_due_at: number | null;
  /** The due time whose reminder went (once per due time, whichever process ran it). */
  reminded_due_at: number | null;
  /** The due time whose alert went, and that alert. */
  missed_due_at: number | null;
  alert_id: string | null;
  /** The e-mail reminder's one-click link, hashed; cleared when used; good until the end of the grace. */
  link_hash: string | null;
  link_expires_at: number | null;
  created_at: number;
  updated_at: number;
}
