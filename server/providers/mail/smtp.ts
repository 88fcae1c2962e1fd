import nodemailer from 'nodemailer';
import type { MailPort } from './port.js';

/** Sends through an SMTP server given as `smtp://user:pass@host:port` or `smtps://...`. */
export function createSmtpMail(smtpUrl: string, from: string): MailPort {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    name: 'smtp',
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    async close() {
      transport.close();
    },
  };
}
