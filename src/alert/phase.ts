import type { AlertResult, PageData } from './api';
import type { StoredAlert } from './storage';

/** Where the real emergency page is in its life (src/alert/emergency.ts). */
export type Phase =
  | { name: 'loading' }
  | { name: 'countdown'; remaining: number }
  | { name: 'cancelled' }
  /** Opened from a check-in reminder: no countdown, the alert button ready. */
  | { name: 'ready' }
  | { name: 'sending' }
  | { name: 'queued'; retryAfter?: number }
  | { name: 'sent'; alert: AlertResult }
  | { name: 'invalid' | 'inactive' | 'failed' };

export interface EmergencyState {
  page: PageData | null;
  phase: Phase;
  /** The alert pressed on this visit or left from an earlier one. */
  alert: StoredAlert | null;
}
