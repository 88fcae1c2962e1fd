import type { CallState } from '../../common/api/escalation';
import type { Language } from '../../common/constants';
import { alarm as enAlarm } from '../i18n/locales/en-alarm';
import { alarm as ptAlarm } from '../i18n/locales/pt-alarm';

/** An app string with its `{{name}}` places filled, as i18next fills them. */
const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');

/**
 * The words the home page's open alerts say too (src/i18n/locales/*-alarm.ts), kept there once:
 * who is on the way and how (their own link from the SMS, a reply to it, or the call), the
 * owner's open alerts with what raised each, and "I'm safe" with its confirmation.
 */
const sameAsHome = ({ alarm }: typeof ptAlarm) => ({
  respondersHeading: alarm.onTheWay,
  noResponders: alarm.nobody,
  someone: alarm.someone,
  responder: (name: string, time: string) => fill(alarm.responder, { name, time }),
  via: alarm.via as Record<'link' | 'sms' | 'call', string>,
  openHeading: alarm.title,
  /** What raised an alert, and since when there has been no sign. */
  why: {
    button: (time: string) => fill(alarm.why.button, { time }),
    missed_daily: (time: string) => fill(alarm.why.missed_daily, { time }),
    missed_checkin: (time: string) => fill(alarm.why.missed_checkin, { time }),
  },
  since: (when: string) => fill(alarm.since, { when }),
  safe: alarm.safe,
  confirmTitle: alarm.confirmTitle,
  notify: alarm.notify,
  confirm: alarm.confirm,
  back: alarm.back,
  resolving: alarm.resolving,
  resolved: alarm.resolved,
  allClearSent: alarm.allClearSent,
  resolveFailed: alarm.failed,
});

/** Strings of the emergency page's after-sending panel: tracking, responders, escalation calls, "I'm safe". */
const pt = {
  ...sameAsHome(ptAlarm),
  tracking: 'A partilhar a sua posição com os contactos enquanto esta página estiver aberta.',
  trackingPaused: 'Partilha da posição em pausa enquanto a página está escondida.',
  trackingStopped: 'A partilha da posição terminou.',
  trackingLastSent: (time: string) => `Última posição enviada às ${time}.`,
  livePage: 'Página que os contactos veem',
  confirmBody: 'A partilha da posição para e a página dos contactos passa a dizer que está em segurança.',
  /** "I'm safe" refused without the owner's proof (403 owner_proof_required). */
  resolveNeedsOwner:
    'Para terminar o alerta, este telemóvel tem de mostrar que é seu: inicie sessão aqui uma vez e confirme de novo.',
  /** A position refused without the owner's proof: the tracking goes on and is taken once signed in. */
  trackingNeedsOwner:
    'A sua posição não está a ser aceite: só o seu telemóvel pode mover este alerta. Inicie sessão uma vez em «É o seu telemóvel?», no fim da página.',
  escalationWaiting: (time: string) => `Se ninguém responder até às ${time}, ligamos-lhes.`,
  escalationCalling: 'Ninguém respondeu: estamos a ligar aos seus contactos.',
  escalationDone: 'Chamadas terminadas.',
  call: {
    queued: 'em espera',
    ringing: 'a tocar',
    answered: 'atendeu',
    acknowledged: 'vai ajudar',
    no_answer: 'não atendeu',
    busy: 'ocupado',
    failed: 'não foi possível ligar',
  } as Record<CallState, string>,
};

const en: typeof pt = {
  ...sameAsHome(enAlarm),
  tracking: 'Sharing your position with your contacts while this page stays open.',
  trackingPaused: 'Position sharing paused while the page is hidden.',
  trackingStopped: 'Position sharing has ended.',
  trackingLastSent: (time: string) => `Last position sent at ${time}.`,
  livePage: 'The page your contacts see',
  confirmBody: 'Position sharing stops and your contacts’ page says you are safe.',
  resolveNeedsOwner: 'To end the alert this phone must show it is yours: sign in here once, then confirm again.',
  trackingNeedsOwner:
    'Your position is not being taken: only your own phone can move this alert. Sign in once under “Is this your phone?” at the bottom of the page.',
  escalationWaiting: (time: string) => `If nobody answers by ${time} we will phone them.`,
  escalationCalling: 'Nobody answered: we are phoning your contacts.',
  escalationDone: 'The calls have ended.',
  call: {
    queued: 'waiting',
    ringing: 'ringing',
    answered: 'answered',
    acknowledged: 'will help',
    no_answer: 'no answer',
    busy: 'busy',
    failed: 'could not be called',
  },
};

export type LiveStrings = typeof pt;
export const liveStringsFor = (language: Language): LiveStrings => (language === 'en' ? en : pt);

/** "HH:MM" in the page's language. */
export const hhmm = (at: string | number, language: Language) =>
  new Date(at).toLocaleTimeString(language === 'en' ? 'en-GB' : 'pt-PT', { hour: '2-digit', minute: '2-digit' });

/** A weekday and time in the page's language ("terça-feira, 09:41"). */
export const dayAndTime = (at: string, language: Language) =>
  new Date(at).toLocaleString(language === 'en' ? 'en-GB' : 'pt-PT', {
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
  });
