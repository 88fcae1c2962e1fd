import type { Alert, Delivery, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { DAY } from '../../lib/time.js';
import {
  createOneTimeToken,
  deleteOneTimeTokens,
  findById,
  hashSecret,
  mailTime,
  noteMailEvent,
  oneTimeTokensOf,
  render,
  SPACING_NOTE,
} from '../accounts/index.js';
import { ownerLanguage } from '../owner/index.js';
import { alertById, deliveriesOf } from './repository.js';
import { firedForOwner, serverFiredMail } from './server-fired-mail.js';

/** The "this wasn't me" link of an alert e-mail works once, for 7 days, and not after the links were replaced. */
export const NOT_ME_TTL_MS = 7 * DAY;
/** A later e-mail carries the same link while it has at least this long to go. */
const NOT_ME_REUSE_MS = DAY;

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
    moreSubject: 'Alerta: mais alertas de emergência foram enviados com a sua ligação',
    more: (count: number, since: string) =>
      count === 1
        ? `Foi enviado mais 1 alerta de emergência real a partir da sua ligação desde ${since}.`
        : `Foram enviados mais ${count} alertas de emergência reais a partir da sua ligação desde ${since}.`,
    alerts: 'alertas',
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
    moreSubject: 'Alerta: more emergency alerts were sent with your link',
    more: (count: number, since: string) =>
      count === 1
        ? `1 more real emergency alert was sent from your link since ${since}.`
        : `${count} more real emergency alerts were sent from your link since ${since}.`,
    alerts: 'alerts',
  },
} as const;

/** About a kilometre: enough to recognise the place, not the door. */
const approx = (value: number) => value.toFixed(2);

/** The owner's e-mail about a real alert: when, roughly where, which contacts, and the "this wasn't me" button. */
export function alertMail(user: User, alert: Alert, sent: Sent[], link: string) {
  const language = ownerLanguage(user);
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
      intro: t.intro(mailTime(Number(alert.created_at), language, user.time_zone)),
      button: t.button,
      outro: [place, t.contacts(contacts), t.ifYou, t.ifNot],
    },
    language,
    user.email ?? '',
    user.username,
    link,
  );
}

/** The summary of `count` more real alerts since `since`: how many, and the same "this wasn't me" button. */
export function alertSummaryMail(user: User, count: number, since: number, link: string) {
  const language = ownerLanguage(user);
  const t = TEXTS[language];
  return render(
    {
      subject: t.moreSubject,
      greeting: t.greeting,
      intro: t.more(count, mailTime(since, language, user.time_zone)),
      button: t.button,
      outro: [SPACING_NOTE[language](t.alerts), t.ifYou, t.ifNot],
    },
    language,
    user.email ?? '',
    user.username,
    link,
  );
}

/** What the owner's e-mails need to write their "this wasn't me" link. */
type OwnerMailDeps = Pick<Deps, 'db' | 'dialect' | 'clock' | 'config' | 'tokens'>;

/** The secret of a "this wasn't me" key, derived from its row id: only its hash is stored, yet a later e-mail can carry it again. */
const notMeSecret = (tokens: Deps['tokens'], id: string) => tokens.derive(`not-me:${id}`);

/**
 * The owner's "this wasn't me" key for an e-mail: the one already out while it is unused and has
 * a day or more to go, else a new one (the user's expired ones are deleted then). So one key
 * serves a whole burst and its summaries, and a user has a bounded few, however many alerts.
 */
export async function notMeKeyFor(deps: Pick<Deps, 'db' | 'clock' | 'tokens'>, userId: string): Promise<string> {
  const { db, tokens } = deps;
  const now = deps.clock.now();
  // The user's keys, read once: one still good is reused, the expired ones go.
  const outstanding = await oneTimeTokensOf(db, userId, 'rotate_token');
  for (const row of outstanding) {
    if (row.used_at !== null || Number(row.expires_at) <= now + NOT_ME_REUSE_MS) continue;
    const secret = notMeSecret(tokens, row.id);
    if (hashSecret(secret) === row.token_hash) return secret;
  }
  await deleteOneTimeTokens(
    db,
    outstanding.filter((row) => Number(row.expires_at) <= now).map((row) => row.id),
  );
  return createOneTimeToken(db, {
    userId,
    purpose: 'rotate_token',
    now,
    ttlMs: NOT_ME_TTL_MS,
    secretOf: (id) => notMeSecret(tokens, id),
  });
}

/** The summary the sweep sends for the owner's gathered alerts; nothing for an unverified address. */
export async function ownerSummaryMail(deps: OwnerMailDeps, user: User, count: number, since: number) {
  if (!user.email || !user.email_verified) return null;
  const key = await notMeKeyFor(deps, user.id);
  return alertSummaryMail(user, count, since, notMeLink(deps.config.APP_URL, key));
}

/** The owner's e-mail about `alertId`, due at once: written with the alert (`insertAlert`'s jobs). */
export const ownerMailJob = (alertId: string, now: number) => ({
  kind: 'owner-alert-mail' as const,
  subject: alertId,
  dueAt: now,
  now,
});

/**
 * What the process that stored an alert hands its e-mail's run, claimed at write (`claimAtWrite`):
 * the alert, its owner as read for it, and its deliveries as written, none read back.
 */
export interface OwnerMailWritten {
  alert: Alert;
  user: User;
  deliveries: Pick<Delivery, 'contact_name' | 'status'>[];
}

/**
 * Mails the owner about a real alert. An alarm the server raised for them gets its own e-mail
 * (server-fired-mail.ts). Any other, with the "this wasn't me" link: the first alert of a burst
 * at once, the others counted into one summary 10 minutes after (mail-bursts.ts). A job of the
 * job engine, so a database or mail server that is briefly unavailable, or a process that dies,
 * delays the e-mail and loses nothing.
 */
export async function mailOwnerAboutAlert(
  deps: OwnerMailDeps & Pick<Deps, 'mail'>,
  alertId: string,
  attempt = 1,
  written?: OwnerMailWritten,
): Promise<void> {
  const alert = written?.alert ?? (await alertById(deps.db, alertId));
  const user = written?.user ?? (alert ? await findById(deps.db, alert.user_id) : undefined);
  if (!alert || !user) return;
  const address = user.email;
  if (!address || !user.email_verified) return;
  const deliveries = written?.deliveries ?? (await deliveriesOf(deps.db, [alert.id]));
  // An alarm the server raised is one per missed check-in: no burst to gather, no link to renew.
  if (firedForOwner(alert)) {
    const names = deliveries.filter((d) => d.status !== 'opted_out').map((d) => d.contact_name);
    await deps.mail.send(serverFiredMail(user, alert, names, deps.config.APP_URL));
    return;
  }
  // A run after a failure or a takeover: the burst counted this alert already, and its e-mail may not have gone.
  if (attempt === 1) {
    const event = { kind: 'alert_receipt' as const, address, userId: user.id, now: deps.clock.now() };
    if ((await noteMailEvent(deps.db, deps.dialect, event)) !== 'send') return;
  }
  const sent = deliveries.map((d) => ({
    contact_name: d.contact_name,
    withheld: d.status === 'withheld',
  }));
  const key = await notMeKeyFor(deps, user.id);
  await deps.mail.send(alertMail(user, alert, sent, notMeLink(deps.config.APP_URL, key)));
}
