/** Delivery states a provider reports after accepting a message. */
export type ProviderStatus = 'sent' | 'delivered' | 'undelivered' | 'failed';

export interface SmsMessage {
  to: string;
  body: string;
  /** Our delivery id, for status callbacks. */
  reference: string;
}

/**
 * What `SmsPort.find` looks for: a message to `to` with exactly `body`, accepted at or after
 * `since` (epoch ms, our clock: the start of the first attempt that was never answered).
 */
export interface SmsLookup {
  to: string;
  body: string;
  since: number;
}

/** A delivery receipt, read from the provider's status callback. */
export interface StatusReport {
  status: ProviderStatus;
  providerMessageId?: string;
  reason?: string;
}

/** The provider's status callbacks (`POST /api/sms/status/`): the adapter owns their signature check. */
export interface SmsStatusCallbacks {
  /** True only when the callback is signed by the provider, for `url` (as the provider was given it) and `form`. */
  verify(callback: { url: string; headers: Record<string, unknown>; form: Record<string, string> }): boolean;
  /** The receipt a verified form carries; null for a status that changes nothing (queued, sending…). */
  read(form: { MessageSid?: string; MessageStatus?: string; ErrorCode?: string }): StatusReport | null;
}

/** Sends SMS; route and dispatcher code never know which adapter runs. */
export interface SmsPort {
  readonly name: 'outbox' | 'twilio';
  /**
   * Hands the message to the provider; resolves with the provider's message id, rejects
   * on failure (an error with `permanent: true`, e.g. an invalid number, is not retried;
   * one with `unanswered: true` came without the provider's answer, which may have accepted it).
   */
  send(message: SmsMessage): Promise<{ providerMessageId: string }>;
  /**
   * The message the provider already holds to `to` with exactly `body` since `since`, if any:
   * asked before a send whose earlier attempt was never answered is tried again. A match is
   * only this delivery's when no other SMS to that number has the same text: a real alert's
   * carries the contact's own live-link key, an escalation's the alert's live link, sent once
   * per number (features/alerts/hand-over.ts decides which are asked). Rejects when the
   * provider cannot tell; a provider that rewrites texts (link shortening) finds nothing.
   */
  find?(lookup: SmsLookup): Promise<{ providerMessageId: string } | undefined>;
  /** Registers the listener for asynchronous status reports (delivery receipts). */
  onStatus(listener: (providerMessageId: string, status: ProviderStatus, reason?: string) => void): void;
  /** Present when the provider posts status callbacks (Twilio); the route answers 404 otherwise. */
  readonly statusCallbacks?: SmsStatusCallbacks;
  close?(): Promise<void>;
}

/** Twilio's error when the recipient replied STOP to the sender: the number is opted out. */
export const OPTED_OUT_CODE = 21610;

/** A send the provider refused because the number opted out (it is never retried). */
export const isOptedOutError = (error: unknown) => (error as { optedOut?: unknown } | null)?.optedOut === true;
