import type { Language } from '../../../common/constants.js';
import { canonicalTimeZone } from '../../../common/profile-rules.js';
import { remembered } from '../../../common/remembered.js';
import { escapeHtml } from '../../lib/html.js';
import type { MailMessage } from '../../providers/mail/port.js';

export interface Template {
  subject: string;
  greeting: (username: string) => string;
  /** Paragraphs before the link. */
  intro: string;
  button: string;
  /** Paragraphs after the link. */
  outro: string[];
}

const FOOTER: Record<Language, string> = {
  pt: 'O Alerta não substitui os números de emergência 112 ou 911.',
  en: 'Alerta does not replace the emergency numbers 112 or 911.',
};

const VERIFY: Record<Language, Template> = {
  pt: {
    subject: 'Confirme o seu e-mail no Alerta',
    greeting: (name) => `Olá ${name},`,
    intro: 'Obrigado por se registar no Alerta. Para confirmar o seu endereço de e-mail, abra esta ligação:',
    button: 'Confirmar e-mail',
    outro: ['A ligação é válida durante 3 dias.', 'Se não criou esta conta, ignore este e-mail.'],
  },
  en: {
    subject: 'Confirm your e-mail for Alerta',
    greeting: (name) => `Hello ${name},`,
    intro: 'Thank you for signing up to Alerta. To confirm your e-mail address, open this link:',
    button: 'Confirm e-mail',
    outro: ['The link is valid for 3 days.', 'If you did not create this account, ignore this e-mail.'],
  },
};

const RESET: Record<Language, Template> = {
  pt: {
    subject: 'Redefinir a sua palavra-passe do Alerta',
    greeting: (name) => `Olá ${name},`,
    intro:
      'Recebemos um pedido para redefinir a palavra-passe da sua conta. Para escolher uma nova, abra esta ligação:',
    button: 'Escolher nova palavra-passe',
    outro: [
      'A ligação é válida durante 1 hora e só pode ser usada uma vez. Depois da alteração, todas as sessões abertas terminam.',
      'Se não fez este pedido, ignore este e-mail: a sua palavra-passe não muda.',
    ],
  },
  en: {
    subject: 'Reset your Alerta password',
    greeting: (name) => `Hello ${name},`,
    intro: 'We received a request to reset the password of your account. To choose a new one, open this link:',
    button: 'Choose a new password',
    outro: [
      'The link is valid for 1 hour and works only once. After the change, every open session ends.',
      'If you did not ask for this, ignore this e-mail: your password stays the same.',
    ],
  },
};

/** A mail with one button: the greeting, the intro, the link as a button, then the closing lines. */
export function render(
  template: Template,
  language: Language,
  to: string,
  username: string,
  link: string,
): MailMessage {
  const text = [
    template.greeting(username),
    '',
    template.intro,
    '',
    link,
    '',
    ...template.outro.flatMap((line) => [line, '']),
    '— Alerta',
    FOOTER[language],
    '',
  ].join('\n');
  const paragraph = (line: string) => `<p style="margin:0 0 16px">${escapeHtml(line)}</p>`;
  const href = escapeHtml(link);
  const html = `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(template.subject)}</title></head>
<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2433;line-height:1.5;max-width:36rem;margin:0 auto;padding:24px">
${paragraph(template.greeting(username))}
${paragraph(template.intro)}
<p style="margin:24px 0"><a href="${href}" style="background:#c62828;color:#ffffff;padding:12px 24px;border-radius:8px;text-decoration:none;display:inline-block">${escapeHtml(template.button)}</a></p>
<p style="margin:0 0 16px;font-size:14px;color:#5b6475;word-break:break-all">${href}</p>
${template.outro.map(paragraph).join('\n')}
<p style="margin:24px 0 0;font-size:13px;color:#5b6475">— Alerta<br>${escapeHtml(FOOTER[language])}</p>
</body></html>`;
  return { to, subject: template.subject, text, html };
}

const TAKEN: Record<Language, Template> = {
  pt: {
    subject: 'Tentativa de registo com o seu e-mail no Alerta',
    greeting: (name) => `Olá ${name},`,
    intro:
      'Alguém tentou criar uma conta no Alerta com este endereço de e-mail, que já pertence à sua conta. Nenhuma conta nova foi criada. Para entrar, abra esta ligação:',
    button: 'Entrar no Alerta',
    outro: [
      'Se esqueceu a palavra-passe, pode redefini-la na página de entrada.',
      'Se não foi você, ignore este e-mail.',
    ],
  },
  en: {
    subject: 'Someone tried to sign up to Alerta with your e-mail',
    greeting: (name) => `Hello ${name},`,
    intro:
      'Someone tried to create an Alerta account with this e-mail address, which already belongs to your account. No new account was created. To log in, open this link:',
    button: 'Log in to Alerta',
    outro: [
      'If you forgot your password, you can reset it from the login page.',
      'If it was not you, ignore this e-mail.',
    ],
  },
};

// Making an Intl.DateTimeFormat for a zone took a millisecond, more than the rest of an alert's e-mail.
const longFormat = remembered(200, (key) => {
  const [language, zone] = key.split(' ') as [Language, string];
  return new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : 'pt-PT', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: zone,
  });
});

/** A time in the reader's zone (UTC without one) with the zone's name, never throwing. */
export function mailTime(at: number, language: Language, timeZone: string | null): string {
  const zone = (timeZone && canonicalTimeZone(timeZone)) || 'UTC';
  try {
    return `${longFormat(`${language} ${zone}`).format(new Date(at))} (${zone})`;
  } catch {
    return new Date(at).toISOString();
  }
}

/** Said under every summary: why one e-mail tells of several events. */
export const SPACING_NOTE: Record<Language, (what: string) => string> = {
  pt: (what) =>
    `Para não encher a sua caixa de correio, o Alerta envia no máximo um e-mail sobre ${what} a cada 10 minutos e 20 por dia; os restantes são contados no e-mail seguinte.`,
  en: (what) =>
    `To keep your inbox usable, Alerta sends at most one e-mail about ${what} every 10 minutes and 20 a day; the others are counted in the next e-mail.`,
};

/** What a burst's summary says instead of its first mail's subject and intro. */
type Again = { subject: string; intro: (count: number, since: string) => string };

/**
 * The summary of a kind of burst, in the holder's language: the first mail's button and closing
 * lines under the summary's own subject and intro (`count` more since `since`), and why one mail
 * tells of several `what`.
 */
function summaryMail(kind: {
  first: Record<Language, Template>;
  again: Record<Language, Again>;
  what: Record<Language, string>;
}) {
  return (
    language: Language,
    to: string,
    username: string,
    link: string,
    count: number,
    since: string,
  ): MailMessage => {
    const first = kind.first[language];
    const again = kind.again[language];
    const outro = [...first.outro, SPACING_NOTE[language](kind.what[language])];
    return render(
      { ...first, subject: again.subject, intro: again.intro(count, since), outro },
      language,
      to,
      username,
      link,
    );
  };
}

const TAKEN_AGAIN: Record<Language, Again> = {
  pt: {
    subject: 'Novas tentativas de registo com o seu e-mail no Alerta',
    intro: (count, since) =>
      `${count === 1 ? 'Houve mais 1 tentativa' : `Houve mais ${count} tentativas`} de criar uma conta no Alerta com este endereço de e-mail desde ${since}. Nenhuma conta nova foi criada. Para entrar, abra esta ligação:`,
  },
  en: {
    subject: 'More attempts to sign up to Alerta with your e-mail',
    intro: (count, since) =>
      `${count === 1 ? '1 more attempt' : `${count} more attempts`} to create an Alerta account with this e-mail address ${count === 1 ? 'was' : 'were'} made since ${since}. No new account was created. To log in, open this link:`,
  },
};

const ATTEMPTS: Record<Language, string> = { pt: 'tentativas de registo', en: 'sign-up attempts' };

/** The summary of more registration attempts on an address, in the holder's language. */
export const registrationSummaryMail = summaryMail({ first: TAKEN, again: TAKEN_AGAIN, what: ATTEMPTS });

/** The notice to an address someone tried to register again (no account is made), in pt or en. */
export const registrationNoticeMail = (language: Language, to: string, username: string, link: string): MailMessage =>
  render(TAKEN[language], language, to, username, link);

/** The verification e-mail (link valid 3 days), plain text and HTML, in pt or en. */
export const verificationMail = (language: Language, to: string, username: string, link: string): MailMessage =>
  render(VERIFY[language], language, to, username, link);

/** The password-reset e-mail (link valid 1 hour, single use), plain text and HTML, in pt or en. */
export const resetMail = (language: Language, to: string, username: string, link: string): MailMessage =>
  render(RESET[language], language, to, username, link);

const RESET_AGAIN: Record<Language, Again> = {
  pt: {
    subject: 'Novos pedidos para redefinir a sua palavra-passe do Alerta',
    intro: (count, since) =>
      `${count === 1 ? 'Houve mais 1 pedido' : `Houve mais ${count} pedidos`} para redefinir a palavra-passe da sua conta desde ${since}. Se foi você e ainda precisa, escolha uma nova com esta ligação:`,
  },
  en: {
    subject: 'More requests to reset your Alerta password',
    intro: (count, since) =>
      `${count === 1 ? '1 more request' : `${count} more requests`} to reset the password of your account ${count === 1 ? 'was' : 'were'} made since ${since}. If it was you and you still need it, choose a new password with this link:`,
  },
};

const RESETS: Record<Language, string> = { pt: 'pedidos de nova palavra-passe', en: 'password resets' };

/** The summary of more reset requests, with a fresh link, in the holder's language. */
export const resetSummaryMail = summaryMail({ first: RESET, again: RESET_AGAIN, what: RESETS });
