import type { DevOutbox } from '../outbox.js';
import type { MailPort } from './port.js';

/** The embedded default: captures every e-mail in the dev outbox. */
export function createOutboxMail(outbox: DevOutbox, now: () => number): MailPort {
  return {
    name: 'outbox',
    async send(message) {
      outbox.addEmail({ ...message, sent_at: new Date(now()).toISOString() });
    },
  };
}
