/** A captured e-mail, as `/dev/outbox.json` shows it. */
export interface CapturedEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sent_at: string;
}

/** A captured SMS, as `/dev/outbox.json` shows it. */
export interface CapturedSms {
  id: string;
  to: string;
  body: string;
  status: 'sent' | 'delivered' | 'failed';
  sent_at: string;
}

/** A captured Web Push notification, as `/dev/outbox.json` shows it. */
export interface CapturedPush {
  endpoint: string;
  title: string;
  body: string;
  sent_at: string;
}

/** A captured voice call, as `/dev/outbox.json` shows it: its status follows the keys pressed on the outbox page. */
export interface CapturedCall {
  /** Our call id: `POST /dev/outbox/calls/{id}/digits/` presses keys on it. */
  id: string;
  to: string;
  say: string;
  language: string;
  status: string;
  placed_at: string;
}

const LIMIT = 1000;

/** What the embedded mail, SMS and voice adapters (and every Web Push) captured, newest first, kept in memory. */
export class DevOutbox {
  readonly emails: CapturedEmail[] = [];
  readonly sms: CapturedSms[] = [];
  readonly push: CapturedPush[] = [];
  readonly calls: CapturedCall[] = [];
  /** Told of each e-mail and SMS captured (the log, where no address opens the outbox pages). */
  onCapture?: (message: { email: Omit<CapturedEmail, 'html'> } | { sms: Pick<CapturedSms, 'to' | 'body'> }) => void;

  addEmail(email: CapturedEmail): void {
    this.emails.unshift(email);
    this.emails.length = Math.min(this.emails.length, LIMIT);
    const { html: _html, ...shown } = email;
    this.onCapture?.({ email: shown });
  }

  addSms(sms: CapturedSms): void {
    this.sms.unshift(sms);
    this.sms.length = Math.min(this.sms.length, LIMIT);
    this.onCapture?.({ sms: { to: sms.to, body: sms.body } });
  }

  addPush(push: CapturedPush): void {
    this.push.unshift(push);
    this.push.length = Math.min(this.push.length, LIMIT);
  }

  addCall(call: CapturedCall): void {
    this.calls.unshift(call);
    this.calls.length = Math.min(this.calls.length, LIMIT);
  }

  clear(): void {
    this.calls.length = 0;
    this.push.length = 0;
    this.emails.length = 0;
    this.sms.length = 0;
  }
}
