/** Tables of contacts' invitations and SMS replies (features/sms-replies/). */

/** A number that replied STOP (or that the provider reports opted out): Alerta sends it nothing, from any account. */
export interface SmsOptOutsTable {
  phone_number: string;
  /** `reply`: its own STOP; `provider`: the provider refused a send (Twilio error 21610). */
  source: 'reply' | 'provider';
  created_at: number;
}

/**
 * What a notice is: an invitation to be a contact, the help text, "which alert?", "that alert has
 * ended", or "your answer was taken".
 */
export type SmsNoticeKind = 'invitation' | 'help' | 'which' | 'ended' | 'taken';

/** One SMS Alerta sends outside an alert, sent by its job (`sms-notice`); `user_id` for an invitation. */
export interface SmsNoticesTable {
  id: string;
  user_id: string | null;
  phone_number: string;
  kind: SmsNoticeKind;
  body: string;
  status: 'queued' | 'sent' | 'failed' | 'opted_out';
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** The alerts a number was asked to choose between (JSON list of alert ids, in the order asked). */
export interface SmsReplyQuestionsTable {
  phone_number: string;
  alert_ids: string;
  /** The language it was asked in: the answer's own notice speaks it. */
  language: 'pt' | 'en';
  created_at: number;
}

/** An inbound SMS already taken (Twilio's MessageSid): a replay of it is answered, not acted on. */
export interface SmsInboundSeenTable {
  message_sid: string;
  created_at: number;
}
