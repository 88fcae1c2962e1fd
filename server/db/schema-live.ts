import type { Generated } from 'kysely';

/** Tables of the live page after an alert (features/live/). */

/** A position sent by the emergency page while it stays open after an alert (live page trail). */
export interface AlertLocationsTable {
  id: string;
  alert_id: string;
  latitude: number;
  longitude: number;
  accuracy: number;
  captured_at: number;
  created_at: number;
}

/** A contact who pressed "I'm on my way" on the live page; the name is optional (empty). */
export interface AlertRespondersTable {
  id: string;
  alert_id: string;
  name: string;
  created_at: number;
  /** The delivery whose contact key answered (one answer each); null for anyone else with the link (migration 2026112504-live-responders). */
  delivery_id: Generated<string | null>;
  /** SHA-256 of the alert and the client address, for the per-address cap of answers without a key. */
  client_hash: Generated<string | null>;
  /** How a contact answered: their link, an SMS reply or the escalation call; null for anyone else (migration 2026120704-responder-channel). */
  channel: Generated<ResponderChannel | null>;
}

/** How a contact said they were on the way. */
export type ResponderChannel = 'link' | 'sms' | 'call';
