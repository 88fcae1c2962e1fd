/** Shapes of the API's answers (DESIGN.md §3). */

export type Plan = 'basic' | 'premium';

export interface Profile {
  has_premium: boolean;
  is_in_trial: boolean;
  trial_days_left: number;
  trial_start: string | null;
  has_used_trial: boolean;
  plan: Plan | null;
  contact_limit: number;
  gps_enabled: boolean;
  alert_countdown_seconds: number;
  token: string | null;
}

export interface User {
  id: string;
  username: string;
  email: string | null;
  language: string;
  /** The name contacts see; null when they see the username. */
  display_name: string | null;
  /** IANA time zone of the times in the SMS; null for UTC. */
  time_zone: string | null;
  token: string | null;
  profile: Profile;
}

export interface Contact {
  id: string;
  name: string;
  phone_number: string;
  relationship: string | null;
  /** False when the plan's limit leaves this contact out of alerts (kept, not deleted). */
  alerted?: boolean;
}

export interface Tokens {
  access: string;
  refresh?: string;
}
