import { LANG_STORAGE_KEY, LANGUAGES, type Language } from '../../common/constants';
import { RESPONDER_NAME_MAX, type ResponderNameProblem } from '../../common/responder-name';

/** Every string of the live page; its own so the page loads none of the app's locales. */
const pt = {
  title: 'Alerta em direto',
  loading: 'A carregar…',
  missing: 'Esta ligação não existe.',
  offline: 'Sem ligação: a tentar de novo…',
  ended: 'Este alerta terminou. A página já não mostra nada.',
  needsHelp: (name: string) => `${name} precisa de ajuda`,
  safe: (name: string) => `${name} está em segurança`,
  stateActive: 'Alerta ativo',
  stateResolved: 'Alerta terminado: está em segurança',
  sentAt: (time: string, ago: string) => `Alerta enviado às ${time} (${ago})`,
  /** Why an alarm nobody pressed went out, as its SMS says. */
  why: {
    missed_daily: (name: string) => `${name} não fez o check-in diário.`,
    missed_checkin: (name: string) => `${name} não confirmou que estava bem, como tinha combinado.`,
    duress: (name: string) => `${name} pode estar a agir sob coação. Não lhe ligue; peça ajuda às autoridades.`,
  },
  since: (when: string) => `Nenhum sinal desde ${when}.`,
  /** A contact's own answer, however it came (their link, an SMS reply, the call). */
  youAnswered: (time: string) => `Disse que vai a caminho às ${time}.`,
  via: { link: 'contacto', sms: 'por SMS', call: 'pela chamada' } as Record<'link' | 'sms' | 'call', string>,
  positionHeading: 'Última posição',
  accuracy: (m: number) => `precisão ${m} m`,
  openMaps: 'Abrir no mapa',
  openMapsApp: 'Abrir na app de mapas',
  mapCaption: 'Ponto vermelho: última posição; círculo: a sua precisão; linha: o percurso recente.',
  noPosition: 'Sem localização em direto para este alerta.',
  trackingUntil: (time: string) => `Atualiza sozinha enquanto a pessoa tiver a página aberta, até às ${time}.`,
  trailHeading: 'Posições recentes',
  respondersHeading: 'A caminho',
  noResponders: 'Ainda ninguém disse que vai a caminho.',
  someone: 'Alguém',
  /** After the responder's name (shown isolated, so a right-to-left name keeps the sentence in order). */
  onTheWay: (time: string) => ` vai a caminho (${time})`,
  nameLabel: 'O seu nome (opcional)',
  onMyWay: 'Vou a caminho',
  sending: 'A enviar…',
  ackSent: 'Obrigado: a pessoa vê que vai a caminho.',
  ackFailed: 'Não foi possível enviar. Tente de novo.',
  ackLimited: 'Demasiados pedidos: espere um pouco.',
  ackFull:
    'Já há pessoas suficientes a caminho por esta ligação. Se é um dos contactos, abra a ligação do seu próprio SMS.',
  contactMark: 'contacto',
  nameProblems: {
    too_long: `O nome pode ter no máximo ${RESPONDER_NAME_MAX} caracteres.`,
    no_visible: 'O nome não tem caracteres visíveis: escreva um nome ou deixe em branco.',
    too_complex: 'O nome tem um carácter com demasiadas partes.',
  } satisfies Record<ResponderNameProblem, string>,
  ago: {
    now: 'agora mesmo',
    seconds: (n: number) => `há ${n} s`,
    minutes: (n: number) => `há ${n} min`,
    hours: (n: number) => `há ${n} h`,
  },
  call112: 'O Alerta não substitui o 112: numa emergência, ligue 112.',
};

const en: typeof pt = {
  title: 'Live alert',
  loading: 'Loading…',
  missing: 'This link does not exist.',
  offline: 'No connection: trying again…',
  ended: 'This alert has ended. The page no longer shows anything.',
  needsHelp: (name: string) => `${name} needs help`,
  safe: (name: string) => `${name} is safe`,
  stateActive: 'Alert active',
  stateResolved: 'Alert over: they are safe',
  sentAt: (time: string, ago: string) => `Alert sent at ${time} (${ago})`,
  why: {
    missed_daily: (name: string) => `${name} missed their daily check-in.`,
    missed_checkin: (name: string) => `${name} did not check in as planned.`,
    duress: (name: string) => `${name} may be acting under duress. Do not call them; contact the authorities.`,
  },
  since: (when: string) => `No sign since ${when}.`,
  youAnswered: (time: string) => `You said you are on your way at ${time}.`,
  via: { link: 'contact', sms: 'by SMS', call: 'by the call' },
  positionHeading: 'Latest position',
  accuracy: (m: number) => `accuracy ${m} m`,
  openMaps: 'Open in maps',
  openMapsApp: 'Open in the maps app',
  mapCaption: 'Red dot: latest position; circle: its accuracy; line: the recent path.',
  noPosition: 'No live location for this alert.',
  trackingUntil: (time: string) => `Updates by itself while they keep the page open, until ${time}.`,
  trailHeading: 'Recent positions',
  respondersHeading: 'On the way',
  noResponders: 'Nobody has said they are on the way yet.',
  someone: 'Someone',
  onTheWay: (time: string) => ` is on the way (${time})`,
  nameLabel: 'Your name (optional)',
  onMyWay: "I'm on my way",
  sending: 'Sending…',
  ackSent: 'Thank you: they can see you are on the way.',
  ackFailed: 'Could not send. Try again.',
  ackLimited: 'Too many requests: wait a little.',
  ackFull:
    'Enough people have already said they are on the way through this link. If you are one of the contacts, open the link from your own SMS.',
  contactMark: 'contact',
  nameProblems: {
    too_long: `The name may have at most ${RESPONDER_NAME_MAX} characters.`,
    no_visible: 'The name has no visible characters: type a name or leave it empty.',
    too_complex: 'The name has a character made of too many parts.',
  },
  ago: {
    now: 'just now',
    seconds: (n: number) => `${n} s ago`,
    minutes: (n: number) => `${n} min ago`,
    hours: (n: number) => `${n} h ago`,
  },
  call112: 'Alerta does not replace 112 or 911: in an emergency, call them.',
};

export type LiveStrings = typeof pt;

const known = (value: string | null | undefined): value is Language =>
  (LANGUAGES as readonly string[]).includes(value ?? '');

/** The viewer's saved choice (`lang`), else the alert owner's language, else Portuguese. */
export function liveLanguage(ownerLanguage?: string | null): Language {
  try {
    const saved = localStorage.getItem(LANG_STORAGE_KEY);
    if (known(saved)) return saved;
  } catch {
    // Storage blocked: fall through.
  }
  return known(ownerLanguage) ? ownerLanguage : 'pt';
}

export const liveStrings = (language: Language): LiveStrings => (language === 'en' ? en : pt);

/** "HH:MM" in the page's language. */
export const clock = (iso: string, language: Language) =>
  new Date(iso).toLocaleTimeString(language === 'en' ? 'en-GB' : 'pt-PT', { hour: '2-digit', minute: '2-digit' });

/** How long ago, coarsely. */
export function ago(iso: string, now: number, s: LiveStrings): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (seconds < 10) return s.ago.now;
  if (seconds < 60) return s.ago.seconds(seconds);
  if (seconds < 3600) return s.ago.minutes(Math.floor(seconds / 60));
  return s.ago.hours(Math.floor(seconds / 3600));
}

/** A weekday and time in the page's language ("terça-feira, 09:41"). */
export const dayClock = (iso: string, language: Language) =>
  new Date(iso).toLocaleString(language === 'en' ? 'en-GB' : 'pt-PT', {
    weekday: 'long',
    hour: '2-digit',
    minute: '2-digit',
  });
