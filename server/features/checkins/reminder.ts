import type { Language } from '../../../common/constants.js';
import { clockIn } from '../../../common/profile-rules.js';
import type { Checkin, User } from '../../db/schema.js';
import type { MailMessage } from '../../providers/mail/port.js';
import type { PushMessage } from '../../providers/push/port.js';
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

const languageOf = (user: User): Language => (user.language === 'en' ? 'en' : 'pt');
/** When the alert goes out, in the owner's time zone. */
const firesAtClock = (user: User, checkin: Checkin) =>
  clockIn(Number(checkin.due_at) + Number(checkin.grace_seconds) * 1000, user.time_zone) ?? '?';

/** The overdue check-in's reminder e-mail: the time the alert goes out, and the emergency page to end it. */
export function reminderMail(user: User, checkin: Checkin, pageUrl: string): MailMessage {
  const language = languageOf(user);
  return render(REMINDER[language](firesAtClock(user, checkin)), language, user.email ?? '', user.username, pageUrl);
}

/**
 * The same reminder as a notification: the service worker shows it with "I'm safe" (which ends
 * the check-in) and "Open" (the emergency page), from `data`.
 */
export function reminderPush(user: User, checkin: Checkin, token: string, pageUrl: string): PushMessage {
  const template = REMINDER[languageOf(user)](firesAtClock(user, checkin));
  return {
    title: template.subject.replace(/^Alerta: /, ''),
    body: template.intro,
    data: {
      kind: 'checkin-reminder',
      checkin_id: checkin.id,
      token,
      url: pageUrl,
      language: languageOf(user),
      pin: user.checkin_pin_hash ? '1' : '0',
    },
  };
}
