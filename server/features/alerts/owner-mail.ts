import type { FastifyInstance } from 'fastify';
import type { Language } from '../../../common/constants.js';
import { canonicalTimeZone } from '../../../common/profile-rules.js';
import type { Alert, User } from '../../db/schema.js';
import { DAY } from '../../lib/time.js';
import { render } from '../accounts/mail.js';
import { createOneTimeToken } from '../accounts/repository.js';

/** The "this wasn't me" link of an alert e-mail works once, for 7 days. */
export const NOT_ME_TTL_MS = 7 * DAY;

/** The page the e-mail's button opens; it asks for one more click, so a mail scanner opening links changes nothing. */
export const notMeLink = (appUrl: string, key: string) => `${appUrl}/api/users/not-me/${key}/`;

interface Sent {
  contact_name: string;
  withheld?: boolean;
}

const TEXTS = {
  pt: {
    subject: 'Alerta: foi enviado um alerta de emergência com a sua ligação',
    greeting: (name: string) => `Olá ${name},`,
    intro: (when: string) => `Foi enviado um alerta de emergência real a partir da sua ligação em ${when}.`,
    button: 'Não fui eu: criar novas ligações',
    place: (where: string) => `Local aproximado: ${where}.`,
    noPlace: 'Local: não enviado.',
    contacts: (list: string) => `Contactos: ${list}.`,
    withheld: 'já alertado há pouco, SMS não reenviado',
    ifYou: 'Se foi você, não precisa de fazer nada.',
    ifNot:
      'Se não foi você, alguém tem a sua ligação de emergência: o botão acima cria novas ligações e as antigas deixam de funcionar de imediato. Depois abra a nova ligação no seu telemóvel.',
  },
  en: {
    subject: 'Alerta: an emergency alert was sent with your link',
    greeting: (name: string) => `Hello ${name},`,
    intro: (when: string) => `A real emergency alert was sent from your link on ${when}.`,
    button: "This wasn't me: new links",
    place: (where: string) => `Approximate place: ${where}.`,
    noPlace: 'Place: not sent.',
    contacts: (list: string) => `Contacts: ${list}.`,
    withheld: 'alerted a moment ago, SMS not sent again',
    ifYou: 'If it was you, there is nothing to do.',
    ifNot:
      "If it wasn't you, someone has your emergency link: the button above makes new links and the old ones stop working at once. Then open the new link on your phone.",
  },
} as const;

/** The time in the owner's zone (UTC without one), never throwing. */
function when(at: number, language: Language, timeZone: string | null): string {
  const zone = (timeZone && canonicalTimeZone(timeZone)) || 'UTC';
  try {
    const text = new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : 'pt-PT', {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: zone,
    }).format(new Date(at));
    return `${text} (${zone})`;
  } catch {
    return new Date(0).toISOString();
  }
}

/** About a kilometre: enough to recognise the place, not the door. */
const approx = (value: number) => value.toFixed(2);

/** The owner's e-mail about a real alert: when, roughly where, which contacts, and the "this wasn't me" button. */
export function alertMail(user: User, alert: Alert, sent: Sent[], link: string) {
  const language: Language = user.language === 'en' ? 'en' : 'pt';
  const t = TEXTS[language];
  const place =
    alert.latitude !== null && alert.longitude !== null
      ? t.place(
          `${approx(alert.latitude)}, ${approx(alert.longitude)} (https://www.openstreetmap.org/?mlat=${approx(alert.latitude)}&mlon=${approx(alert.longitude)}#map=14/${approx(alert.latitude)}/${approx(alert.longitude)})`,
        )
      : t.noPlace;
  const contacts = sent.map((d) => (d.withheld ? `${d.contact_name} (${t.withheld})` : d.contact_name)).join(', ');
  return render(
    {
      subject: t.subject,
      greeting: t.greeting,
      intro: t.intro(when(Number(alert.created_at), language, user.time_zone)),
      button: t.button,
      outro: [place, t.contacts(contacts), t.ifYou, t.ifNot],
    },
    language,
    user.email ?? '',
    user.username,
    link,
  );
}

/**
 * Mails the owner about a real alert, with a single-use "this wasn't me" link. Failures
 * are logged, never thrown: the alert itself has gone out already.
 */
export async function mailOwnerAboutAlert(app: FastifyInstance, user: User, alert: Alert, sent: Sent[]) {
  if (!user.email || !user.email_verified) return;
  try {
    const key = await createOneTimeToken(app.db, {
      userId: user.id,
      purpose: 'rotate_token',
      now: app.clock.now(),
      ttlMs: NOT_ME_TTL_MS,
    });
    await app.mail.send(alertMail(user, alert, sent, notMeLink(app.config.APP_URL, key)));
  } catch (error) {
    app.log.error({ reason: (error as Error).message }, 'alert e-mail to the owner could not be sent');
  }
}
