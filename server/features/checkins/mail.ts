import type { Language } from '../../../common/constants.js';
import { clockIn } from '../../../common/profile-rules.js';
import type { Checkin, User } from '../../db/schema.js';
import type { MailMessage } from '../../providers/mail/port.js';
import { render, type Template } from '../accounts/mail.js';

const REMINDER: Record<Language, (firesAt: string) => Template> = {
  pt: (firesAt) => ({
    subject: 'Alerta: está tudo bem?',
    greeting: (name) => `Olá ${name},`,
    intro: `Está tudo bem? Toque para dizer que está em segurança, ou os seus contactos são alertados às ${firesAt}.`,
    button: 'Estou bem',
    outro: ['Se precisa de ajuda, não faça nada: o alerta sai sozinho.'],
  }),
  en: (firesAt) => ({
    subject: 'Alerta: are you OK?',
    greeting: (name) => `Hello ${name},`,
    intro: `Are you OK? Tap to say you are safe, or your contacts are alerted at ${firesAt}.`,
    button: 'I’m safe',
    outro: ['If you need help, do nothing: the alert goes out by itself.'],
  }),
};

/** The overdue check-in's reminder: the time the alert goes out, and the emergency page to end it. */
export function reminderMail(user: User, checkin: Checkin, pageUrl: string): MailMessage {
  const language: Language = user.language === 'en' ? 'en' : 'pt';
  const firesAt = Number(checkin.due_at) + Number(checkin.grace_seconds) * 1000;
  const template = REMINDER[language](clockIn(firesAt, user.time_zone) ?? '?');
  return render(template, language, user.email ?? '', user.username, pageUrl);
}
