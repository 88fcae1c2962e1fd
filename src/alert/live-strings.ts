import type { CallState } from '../../common/api/escalation';
import type { Language } from '../../common/constants';

/** Strings of the emergency page's after-sending panel: tracking, responders, escalation calls, "I'm safe". */
const pt = {
  tracking: 'A partilhar a sua posição com os contactos enquanto esta página estiver aberta.',
  trackingPaused: 'Partilha da posição em pausa enquanto a página está escondida.',
  trackingStopped: 'A partilha da posição terminou.',
  trackingLastSent: (time: string) => `Última posição enviada às ${time}.`,
  livePage: 'Página que os contactos veem',
  respondersHeading: 'Quem vem a caminho',
  noResponders: 'Ainda ninguém respondeu.',
  someone: 'Alguém',
  responder: (name: string, time: string) => `${name} vai a caminho (${time})`,
  /** After a contact's answer: through their own link from the SMS, a reply to it, or the call. */
  via: { link: 'pela ligação de um contacto', sms: 'por SMS', call: 'pela chamada' } as Record<
    'link' | 'sms' | 'call',
    string
  >,
  /** The owner's open alerts, listed wherever the owner is signed in. */
  openHeading: 'Alertas ativos',
  why: {
    button: (time: string) => `Alerta enviado às ${time}.`,
    missed_daily: (time: string) => `Não fez o check-in diário: os seus contactos foram alertados às ${time}.`,
    missed_checkin: (time: string) => `O check-in não foi terminado: os seus contactos foram alertados às ${time}.`,
  },
  since: (when: string) => `Sem sinal seu desde ${when}.`,
  safe: 'Estou em segurança',
  confirmTitle: 'Terminar o alerta?',
  confirmBody: 'A partilha da posição para e a página dos contactos passa a dizer que está em segurança.',
  notify: 'Avisar os contactos por SMS de que estou bem',
  confirm: 'Sim, estou em segurança',
  back: 'Voltar',
  resolving: 'A terminar o alerta…',
  resolved: 'Alerta terminado: está em segurança.',
  allClearSent: 'Os contactos vão receber um SMS a dizer que está bem.',
  resolveFailed: 'Não foi possível terminar o alerta. Verifique a rede e tente de novo.',
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
  tracking: 'Sharing your position with your contacts while this page stays open.',
  trackingPaused: 'Position sharing paused while the page is hidden.',
  trackingStopped: 'Position sharing has ended.',
  trackingLastSent: (time: string) => `Last position sent at ${time}.`,
  livePage: 'The page your contacts see',
  respondersHeading: 'Who is on the way',
  noResponders: 'Nobody has answered yet.',
  someone: 'Someone',
  responder: (name: string, time: string) => `${name} is on the way (${time})`,
  via: { link: 'through a contact’s own link', sms: 'by SMS', call: 'by the call' },
  openHeading: 'Active alerts',
  why: {
    button: (time: string) => `Alert sent at ${time}.`,
    missed_daily: (time: string) => `You missed your daily check-in: your contacts were alerted at ${time}.`,
    missed_checkin: (time: string) => `Your check-in was not ended: your contacts were alerted at ${time}.`,
  },
  since: (when: string) => `No sign from you since ${when}.`,
  safe: "I'm safe",
  confirmTitle: 'End the alert?',
  confirmBody: 'Position sharing stops and your contacts’ page says you are safe.',
  notify: 'Tell my contacts by SMS that I am safe',
  confirm: "Yes, I'm safe",
  back: 'Back',
  resolving: 'Ending the alert…',
  resolved: 'Alert ended: you are safe.',
  allClearSent: 'Your contacts will get an SMS saying you are safe.',
  resolveFailed: 'Could not end the alert. Check the network and try again.',
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
