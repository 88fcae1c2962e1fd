import type { Generated } from 'kysely';

/**
 * `running` until its due time, `overdue` during the grace, then `fired` (its alert went out)
 * unless the owner ended it first (`done`).
 */
export type CheckinStatus = 'running' | 'overdue' | 'done' | 'fired';

/** A check-in (features/checkins/, migration 2026112602-checkins). */
export interface CheckinsTable {
  id: string;
  user_id: string;
  idempotency_key: string;
  /** What the first start with this key asked for, hashed: the same key with another body is refused. */
  request_hash: string;
  status: CheckinStatus;
  note: string | null;
  due_at: number;
  grace_seconds: number;
  /** 1 when it was started with the owner's proof; 0 when with the link alone (it fires as a link-only alert). */
  proven: number;
  /** The last position the page sent. */
  latitude: number | null;
  longitude: number | null;
  accuracy: number | null;
  captured_at: number | null;
  /** 1 when that position was sent with the owner's proof (a link-only start's position is not). */
  fix_proven: number;
  /**
   * Wrong PINs given to it; at the fifth, or at the owner's fifth within the hour on any of
   * their check-ins (then set to five), its job fires it.
   */
  wrong_pins: number;
  /** 1 when it was ended with the duress PIN: it reads as done, and its job sends the duress alert. */
  duress: number;
  /** The alert it sent when it fired (never the duress alert: a done check-in names none). */
  alert_id: string | null;
  created_at: number;
  ended_at: number | null;
}

/** A browser's Web Push subscription for the owner's check-in reminders (migration 2026112603-push). */
export interface PushSubscriptionsTable {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  /** The device key that proved the owner when it was made: one per key, removed with it (migration 2026112801-checkin-owner-proof). */
  device_key_id: string | null;
}

/**
 * Wrong check-in PINs per owner (migration 2026112801-checkin-owner-proof): counted from the first
 * wrong one for an hour; at five, wrong or being read, PIN answers are refused until that hour is over.
 */
export interface CheckinPinTriesTable {
  user_id: string;
  window_started_at: number;
  wrong_pins: number;
  /** PIN answers of this hour whose hash is being checked now (migration 2026120703-pin-places). */
  reading: Generated<number>;
}
