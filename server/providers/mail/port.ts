/** An e-mail with both a plain-text and an HTML part. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends e-mail; route code never knows which adapter runs. */
export interface MailPort {
  readonly name: 'outbox' | 'smtp';
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}
