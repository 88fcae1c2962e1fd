import type { Alert, User } from '../../db/schema.js';
import { mailTime, render } from '../accounts/index.js';
import { ownerLanguage } from '../owner/index.js';

/**
 * The owner's e-mail about an alarm the server raised for them (a missed daily check-in, a missed
 * check-in they started): what was missed and who was alerted, with "I'm OK: tell my contacts".
 * Not the link mail's "was it you?": nobody used the link, and new links would break the
 * owner's installed button. Its button only opens the app, where the owner, signed in, ends the
 * alert and chooses to tell the contacts; a mail scanner following it ends nothing.
 */
const TEXTS = {
  pt: {
    dailySubject: 'Alerta: não fez o check-in diário e os seus contactos foram alertados',
    checkinSubject: 'Alerta: o seu check-in não foi terminado e os seus contactos foram alertados',
    greeting: (name: string) => `Olá ${name},`,
    daily: (names: string, when: string) => `Não fez o check-in diário de hoje; ${names} foram alertados em ${when}.`,
    checkin: (names: string, when: string) =>
      `Não terminou a tempo o check-in que iniciou; ${names} foram alertados em ${when}.`,
    nobody: 'nenhum contacto',
    button: 'Estou bem — avisar os contactos',
    how: 'O botão abre o Alerta: com a sessão iniciada, toque em «Estou em segurança» e escolha avisar os contactos por SMS.',
    help: 'Se precisa de ajuda, ligue 112.',
    locale: 'pt-PT',
  },
  en: {
    dailySubject: 'Alerta: you missed your daily check-in and your contacts were alerted',
    checkinSubject: 'Alerta: your check-in was not ended and your contacts were alerted',
    greeting: (name: string) => `Hello ${name},`,
    daily: (names: string, when: string) => `You missed today's daily check-in; ${names} were alerted on ${when}.`,
    checkin: (names: string, when: string) =>
      `The check-in you started was not ended in time; ${names} were alerted on ${when}.`,
    nobody: 'no contact',
    button: "I'm OK — tell my contacts",
    how: 'The button opens Alerta: signed in, tap “I’m safe” and choose to tell your contacts by SMS.',
    help: 'If you need help, call 112.',
    locale: 'en-GB',
  },
} as const;

/** Whether the server raised this alert for the owner (not a press, not the link's check-in, never the duress PIN's). */
export const firedForOwner = (alert: Alert) =>
  alert.reason === 'missed_daily' || (alert.reason === 'missed_checkin' && alert.proven === 1);

/** The e-mail about an alarm the server raised: what was missed, who was alerted, and the app's page to end it. */
export function serverFiredMail(user: User, alert: Alert, contacts: string[], appUrl: string) {
  const language = ownerLanguage(user);
  const t = TEXTS[language];
  const names = contacts.length
    ? new Intl.ListFormat(t.locale, { type: 'conjunction' }).format([...new Set(contacts)])
    : t.nobody;
  const when = mailTime(Number(alert.created_at), language, user.time_zone);
  const daily = alert.reason === 'missed_daily';
  return render(
    {
      subject: daily ? t.dailySubject : t.checkinSubject,
      greeting: t.greeting,
      intro: daily ? t.daily(names, when) : t.checkin(names, when),
      button: t.button,
      outro: [t.how, t.help],
    },
    language,
    user.email ?? '',
    user.username,
    `${appUrl}/`,
  );
}
