import type { ClaimedDelivery } from './deliveries.js';

/**
 * Sending slots an alert's transaction takes before it writes its SMS: that many of them are
 * written already claimed by this dispatcher (`claimedOnInsert`), under its lease, so no claim
 * has to find them again after the commit.
 */
export interface Reservation {
  /** Slots taken: at most this many of the alert's deliveries are written claimed. */
  readonly slots: number;
  /** Until when a row written now is claimed (the dispatcher's clock and lease, read as it is written). */
  leaseUntil(): number;
  /**
   * After commit: sends the deliveries written claimed, gives back the slots left over, and
   * claims whatever else is due (deliveries written queued for want of a slot).
   */
  start(claimed: ClaimedDelivery[], queued: number): void;
  /** Nothing was written (rolled back, or the key had its alert already): gives back the slots. */
  release(): void;
}
