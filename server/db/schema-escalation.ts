import type { Selectable } from 'kysely';

/** `calling`: the calls were placed; `cancelled`: an answer or the all-clear came first; `done`: every call ended. */
export type EscalationOutcome = 'calling' | 'cancelled' | 'done';

/** Where a call to a contact stands (Twilio's call statuses, and the key the contact pressed). */
export type CallStatus = 'queued' | 'ringing' | 'answered' | 'acknowledged' | 'no_answer' | 'busy' | 'failed';

/** One escalation call: at most one per alert and contact (the alert SMS's delivery). */
export interface EscalationCallsTable {
  id: string;
  alert_id: string;
  delivery_id: string;
  contact_name: string;
  phone_number: string;
  status: CallStatus;
  provider_call_id: string | null;
  last_error: string | null;
  placed_at: number | null;
  created_at: number;
  updated_at: number;
}

export type EscalationCall = Selectable<EscalationCallsTable>;
