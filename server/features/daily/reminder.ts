import { createHash } from 'node:crypto';
import type { Language } from '../../../common/constants.js';
import { clockIn } from '../../../common/profile-rules.js';
import { DAILY_REMINDER_HASH } from '../../../common/push.js';
import type { User } from '../../db/schema.js';
import { randomToken } from '../../lib/ids.js';
import type { MailMessage } from '../../providers/mail/port.js';
import type { PushMessage } from '../../providers/push/port.js';
import { hashSecret, render } from '../accounts/index.js';
import { pushToOwner } from '../checkins/index.js';
import { ownerLanguage } from '../owner/index.js';
import type { DailyFireDeps } from './fire.js';
import { setReminderLink } from './repository.js';

const TEXTS: Record<Language, (alarm: string) => { subject: string; intro: string; button: string; outro: string }> = {
  pt: (alarm) => ({
    subject: 'Alerta: está tudo bem hoje?',
    intro: `É hora do seu check-in diário. Toque para dizer que está bem, ou os seus contactos são alertados às ${alarm}.`,
    button: 'Estou bem',
    outro: 'O link serve uma só vez e até essa hora. Se precisa de ajuda, não faça nada: o alerta sai sozinho.',
  }),
  en: (alarm) => ({
    subject: 'Alerta: are you OK today?',
    intro: `It is time for your daily check-in. Tap to say you are OK, or your contacts are alerted at ${alarm}.`,
    button: 'I’m OK',
    outro: 'The link works once, until then. If you need help, do nothing: the alert goes out by itself.',
  }),
};

/**
 * The owner as the notification's tag names them (common/push.ts `owner`): the same for every
 * reminder of theirs, token rotations included, and another account's on the same browser differs.
 */
export const ownerTag = (userId: string) =>
  createHash('sha256').update(`daily:${userId}`).digest('base64url').slice(0, 16);

/** The page the one-click link opens (features/daily/mail-link-routes.ts), in the owner's language even once spent. */
export const mailLinkUrl = (appUrl: string, secret: string, language: Language) =>
  `${appUrl}/api/daily/ok/${secret}/?lang=${language}`;

/**
 * Reminds the owner at the due time: a notification with "I'm OK" on each browser they allowed,
 * and, to a confirmed address, an e-mail with a one-click link (single use, good until the end
 * of the grace, kept hashed). Run as the `daily-reminder` job: a failed e-mail throws so the
 * engine retries it, and a retry (`attempt` > 1) mails again with a new link but leaves the
 * browsers alone. Not counted into a mail burst: it goes at most once per due time, due times
 * are a day or more apart, and only the owner's session sets them, so it is bounded to one a day
 * by construction, and a burst would turn the one e-mail that carries the link into a summary.
 */
export async function remindDaily(deps: DailyFireDeps, user: User, alarmAt: number, attempt = 1): Promise<void> {
  const language = ownerLanguage(user);
  const texts = TEXTS[language](clockIn(alarmAt, user.time_zone) ?? '?');
  // Opened as a reminder opens it: no countdown, the page is opened on "I'm OK today", not to press.
  const page = `${deps.config.APP_URL}/public/${user.token}/${DAILY_REMINDER_HASH}`;
  const push: PushMessage = {
    title: texts.subject.replace(/^Alerta: /, ''),
    body: texts.intro,
    data: { kind: 'daily-reminder', token: user.token ?? '', owner: ownerTag(user.id), url: page, language },
  };
  const mail = async () => {
    if (!user.email || !user.email_verified) return;
    const secret = randomToken(24);
    await setReminderLink(deps.db, user.id, hashSecret(secret), alarmAt);
    await deps.mail.send(dailyMail(user, texts, mailLinkUrl(deps.config.APP_URL, secret, language)));
  };
  const notify = attempt === 1 && user.token ? pushToOwner(deps, user.id, push) : undefined;
  await Promise.all([notify, mail()]);
}

function dailyMail(user: User, texts: ReturnType<(typeof TEXTS)['en']>, link: string): MailMessage {
  const language = ownerLanguage(user);
  const template = {
    subject: texts.subject,
    greeting: (name: string) => (language === 'pt' ? `Olá ${name},` : `Hello ${name},`),
    intro: texts.intro,
    button: texts.button,
    outro: [texts.outro],
  };
  return render(template, language, user.email ?? '', user.username, link);
}
