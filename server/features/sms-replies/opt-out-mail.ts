import type { Language } from '../../../common/constants.js';
import type { Db, User } from '../../db/schema.js';
import { enqueueMany, type JobHandler } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { findById, mailTime, noteMailEvent, render, SPACING_NOTE } from '../accounts/index.js';
import { ownerLanguage } from '../owner/index.js';
import { contactIdsOfNumber, contactsStoppedSince, stoppedContact } from './repository.js';

/**
 * Sets, in the transaction that records a number's STOP, one e-mail job for each contact that
 * number is, so every owner who has it is told once, whatever happens to the process after.
 */
export async function setOptOutMails(db: Db, phone: string, now: number): Promise<void> {
  const contacts = await contactIdsOfNumber(db, phone);
  await enqueueMany(
    db,
    contacts.map((id) => ({ kind: 'contact-opt-out-mail' as const, subject: id, dueAt: now, now })),
  );
}

const TEXTS = {
  pt: {
    subject: (name: string) => `Alerta: ${name} deixou de receber os seus alertas por SMS`,
    greeting: (name: string) => `Olá ${name},`,
    intro: (name: string, phone: string, when: string) =>
      `${name} (${phone}), um dos seus contactos de emergência, respondeu STOP ao número do Alerta em ${when}. A partir de agora o Alerta não envia nenhum SMS para este número, de nenhuma conta: nem os seus alertas, nem convites.`,
    moreSubject: 'Alerta: mais contactos deixaram de receber os seus alertas por SMS',
    more: (count: number, since: string, names: string) =>
      `Os seus contactos responderam STOP ao número do Alerta mais ${count === 1 ? '1 vez' : `${count} vezes`} desde ${since}. ${names ? `Sem SMS agora: ${names}. O Alerta não lhes envia nenhum SMS, de nenhuma conta: nem os seus alertas, nem convites.` : 'Todos responderam START depois: voltam a receber os seus alertas.'}`,
    button: 'Ver os meus contactos',
    ask: 'O que lhe pedir: se ainda quer ser avisado quando precisar de ajuda, basta responder START (ou INICIAR) ao número do Alerta. Volta a receber os seus alertas a partir desse momento.',
    replace:
      'Se preferir não ser seu contacto, acrescente outra pessoa na Configuração, para que os seus alertas cheguem sempre a alguém.',
    what: 'contactos que responderam STOP',
  },
  en: {
    subject: (name: string) => `Alerta: ${name} no longer receives your alerts by SMS`,
    greeting: (name: string) => `Hello ${name},`,
    intro: (name: string, phone: string, when: string) =>
      `${name} (${phone}), one of your emergency contacts, replied STOP to Alerta’s number on ${when}. From now on Alerta sends no SMS to this number, from any account: not your alerts, not invitations.`,
    moreSubject: 'Alerta: more of your contacts no longer receive your alerts by SMS',
    more: (count: number, since: string, names: string) =>
      `Your contacts replied STOP to Alerta’s number ${count === 1 ? '1 more time' : `${count} more times`} since ${since}. ${names ? `Opted out now: ${names}. Alerta sends them no SMS, from any account: not your alerts, not invitations.` : 'Each of them has replied START since: they receive your alerts again.'}`,
    button: 'See my contacts',
    ask: 'What to ask them: if they still want to be told when you need help, they reply START to Alerta’s number. They receive your alerts again from then on.',
    replace:
      'If they would rather not be your contact, add someone else in Setup, so that your alerts always reach someone.',
    what: 'contacts who replied STOP',
  },
} as const satisfies Record<Language, unknown>;

/** Where the button goes: the owner's contacts in Setup. */
const setupLink = (appUrl: string) => `${appUrl}/setup`;

/** The owner's e-mail about one contact's STOP: who, what it means, what to ask them. */
export function optOutMail(appUrl: string, user: User, contact: { name: string; phone_number: string }, at: number) {
  const language = ownerLanguage(user);
  const t = TEXTS[language];
  const when = mailTime(at, language, user.time_zone);
  return render(
    {
      subject: t.subject(contact.name),
      greeting: t.greeting,
      intro: t.intro(contact.name, contact.phone_number, when),
      button: t.button,
      outro: [t.ask, t.replace],
    },
    language,
    user.email ?? '',
    user.username,
    setupLink(appUrl),
  );
}

/**
 * The summary of `count` more STOPs since `since`: how many, and which of the owner's contacts
 * said it since then and still stand by it. Nothing for an unverified address.
 */
export async function optOutSummaryMail(deps: Pick<Deps, 'db' | 'config'>, user: User, count: number, since: number) {
  if (!user.email || !user.email_verified) return null;
  const stopped = await contactsStoppedSince(deps.db, user.id, since);
  const language = ownerLanguage(user);
  const t = TEXTS[language];
  return render(
    {
      subject: t.moreSubject,
      greeting: t.greeting,
      intro: t.more(count, mailTime(since, language, user.time_zone), stopped.join(', ')),
      button: t.button,
      outro: [t.ask, t.replace, SPACING_NOTE[language](t.what)],
    },
    language,
    user.email,
    user.username,
    setupLink(deps.config.APP_URL),
  );
}

/**
 * Mails the owner of one contact whose number said STOP, while it still stands (a START since
 * says it all) and only to a verified address. Anyone can send STOP and START from a number, so
 * these go one per burst (accounts' mail-bursts.ts): the first at once, the next 10 minutes' in
 * one summary, 20 a day. A later attempt (a failure, a takeover) was counted already.
 */
export function optOutMailJob(deps: Pick<Deps, 'db' | 'dialect' | 'clock' | 'config' | 'mail'>): JobHandler {
  return async ({ subject, attempt }) => {
    const stopped = await stoppedContact(deps.db, subject);
    const user = stopped ? await findById(deps.db, stopped.user_id) : undefined;
    if (!stopped || !user?.email || !user.email_verified) return;
    if (attempt === 1) {
      const event = { kind: 'contact_opt_out' as const, address: user.email, userId: user.id, now: deps.clock.now() };
      if ((await noteMailEvent(deps.db, deps.dialect, event)) !== 'send') return;
    }
    await deps.mail.send(optOutMail(deps.config.APP_URL, user, stopped, Number(stopped.created_at)));
  };
}
