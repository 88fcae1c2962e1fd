/** Delivery states a provider reports after accepting a message. */
export type ProviderStatus = 'sent' | 'delivered' | 'undelivered' | 'failed';

export interface SmsMessage {
  to: string;
  body: string;
  /** Our delivery id, for status callbacks. */
  reference: string;
}

/** Sends SMS; route and dispatcher code never know which adapter runs. */
export interface SmsPort {
  readonly name: 'outbox' | 'twilio';
  /**
   * Hands the message to the provider; resolves with the provider's message id, rejects
   * on failure (an error with `permanent: true`, e.g. an invalid number, is not retried).
   */
  send(message: SmsMessage): Promise<{ providerMessageId: string }>;
  /** Registers the listener for asynchronous status reports (delivery receipts). */
  onStatus(listener: (providerMessageId: string, status: ProviderStatus, reason?: string) => void): void;
  close?(): Promise<void>;
}
