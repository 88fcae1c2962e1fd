import type { Language } from '../../../common/constants.js';
import { clockIn } from '../../../common/profile-rules.js';
import { CHECKIN_REMINDER_HASH } from '../../../common/push.js';
import type { Checkin, User } from '../../db/schema.js';
import type { MailMessage } from '../../providers/mail/port.js';
import type { PushMessage } from '../../providers/push/port.js';
import { mailTime, render, SPACING_NOTE, type Template } from '../accounts/index.js';
import { ownerLanguage } from '../owner/index.js';

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

const REMINDERS_AGAIN: Record<Language, { subject: string; intro: (count: number, since: string) => string }> = {
  pt: {
    subject: 'Alerta: mais check-ins passaram da hora',
    intro: (count, since) =>
      `${count === 1 ? 'Mais 1 check-in passou' : `Mais ${count} check-ins passaram`} da hora desde ${since}. Um check-in que não termine a tempo alerta os seus contactos sozinho. Para ver o check-in atual, abra a sua página de emergência:`,
  },
  en: {
    subject: 'Alerta: more check-ins were overdue',
    intro: (count, since) =>
      `${count === 1 ? '1 more check-in was' : `${count} more check-ins were`} overdue since ${since}. A check-in not ended in time alerts your contacts by itself. To see the current one, open your emergency page:`,
  },
};

const OVERDUE: Record<Language, string> = { pt: 'check-ins em atraso', en: 'overdue check-ins' };

const PIN_LOCK: Record<Language, (until: string) => Template> = {
  pt: (until) => ({
    subject: 'Alerta: PIN do check-in bloqueado',
    greeting: (name) => `Olá ${name},`,
    intro: `Foram dados 5 PINs errados nos seus check-ins em menos de uma hora. O check-in alerta os seus contactos, e nenhum PIN é aceite até ${until}.`,
    button: 'Abrir o Alerta',
    outro: ['Se não foi você, alguém pode ter o seu telemóvel: na configuração, remova esse dispositivo e mude o PIN.'],
  }),
  en: (until) => ({
    subject: 'Alerta: check-in PIN locked',
    greeting: (name) => `Hello ${name},`,
    intro: `Five wrong PINs were given to your check-ins within an hour. The check-in alerts your contacts, and no PIN is accepted until ${until}.`,
    button: 'Open Alerta',
    outro: ['If it was not you, someone may have your phone: in setup, remove that device and change your PIN.'],
  }),
};

/** The emergency page opened to say "I'm safe": without the alert countdown. */
export const reminderPage = (appUrl: string, token: string) => `${appUrl}/public/${token}/${CHECKIN_REMINDER_HASH}`;

/** When the alert goes out, in the owner's time zone. */
const firesAtClock = (user: User, checkin: Checkin) =>
  clockIn(Number(checkin.due_at) + Number(checkin.grace_seconds) * 1000, user.time_zone) ?? '?';

/** The overdue check-in's reminder e-mail: the time the alert goes out, and the emergency page to end it. */
export function reminderMail(user: User, checkin: Checkin, pageUrl: string): MailMessage {
  const language = ownerLanguage(user);
  return render(REMINDER[language](firesAtClock(user, checkin)), language, user.email ?? '', user.username, pageUrl);
}

/**
 * The summary of `count` more overdue check-ins since `since` (their reminders gathered one per
 * burst, mail-bursts.ts), to a confirmed address; nothing without a link to open.
 */
export function reminderSummaryMail(appUrl: string, user: User, count: number, since: number): MailMessage | null {
  if (!user.email || !user.email_verified || !user.token) return null;
  const language = ownerLanguage(user);
  const again = REMINDERS_AGAIN[language];
  const template = REMINDER[language]('?');
  return render(
    {
      ...template,
      subject: again.subject,
      intro: again.intro(count, mailTime(since, language, user.time_zone)),
      outro: [...template.outro, SPACING_NOTE[language](OVERDUE[language])],
    },
    language,
    user.email,
    user.username,
    reminderPage(appUrl, user.token),
  );
}

/** The owner's mail when five wrong PINs within the hour lock PIN answers until `until`. */
export function pinLockMail(user: User, until: number, setupUrl: string): MailMessage {
  const language = ownerLanguage(user);
  const template = PIN_LOCK[language](mailTime(until, language, user.time_zone));
  return render(template, language, user.email ?? '', user.username, setupUrl);
}

/**
 * The same reminder as a notification: the service worker shows it with "I'm safe" and "Open",
 * both opening the emergency page on its check-in (`data`, common/push.ts).
 */
export function reminderPush(user: User, checkin: Checkin, pageUrl: string): PushMessage {
  const template = REMINDER[ownerLanguage(user)](firesAtClock(user, checkin));
  return {
    title: template.subject.replace(/^Alerta: /, ''),
    body: template.intro,
    data: {
      kind: 'checkin-reminder',
      checkin_id: checkin.id,
      url: pageUrl,
      language: ownerLanguage(user),
    },
  };
}
