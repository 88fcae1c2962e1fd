import type { Language } from '../../../common/constants';

/** The check-in's words on the emergency page, in Portuguese and English. */
const pt = {
  heading: 'Check-in',
  open: 'Fazer check-in',
  intro: 'Se não disser que está bem até à hora marcada, o Alerta avisa os seus contactos sozinho.',
  minutes: (m: number) => `${m} min`,
  custom: 'Outro (minutos)',
  note: 'Nota para os contactos (opcional)',
  start: 'Iniciar check-in',
  starting: 'A iniciar…',
  close: 'Fechar',
  left: (time: string) => `Faltam ${time}`,
  dueAt: (time: string) => `Até às ${time}`,
  overdue: (time: string) =>
    `Passou da hora: os seus contactos são alertados às ${time}, a menos que diga que está bem.`,
  safe: 'Estou bem',
  pin: 'PIN',
  extend: '+15 min',
  signIn: 'Iniciar sessão neste telemóvel',
  waiting: 'Sem rede: o «Estou bem» está em fila e segue quando houver ligação.',
  done: 'Check-in terminado. Ninguém foi alertado.',
  fired: 'O check-in não foi terminado a tempo: os seus contactos foram alertados.',
  allClear: 'Se está bem, avise-os:',
  livePage: 'Ver o alerta em direto',
  firedSignIn: 'Para ver o alerta e dizer que está em segurança, inicie sessão neste telemóvel.',
  homeScreen:
    'No iPhone, os lembretes só chegam com o Alerta aberto a partir do ícone no ecrã principal (iOS 16.4 ou mais recente).',
  errors: {
    offline:
      'Sem rede: o check-in precisa do servidor e não foi iniciado. Numa emergência, use o botão de alerta ou «Enviar do meu telemóvel (SMS)».',
    running: 'Já há um check-in a decorrer.',
    inactive: 'A subscrição não está ativa: o check-in não pode ser iniciado.',
    unconfirmed: 'Confirme o seu e-mail para poder usar o check-in.',
    wrong_pin: 'PIN errado.',
    pin_locked:
      'Demasiados PINs errados: nenhum PIN é aceite até ao fim da hora. Se o check-in disparou, os seus contactos foram alertados.',
    proof: 'Só o titular pode terminar ou adiar este check-in: inicie sessão uma vez neste telemóvel e tente de novo.',
    too_long: 'Um check-in dura no máximo 24 horas.',
    ended: 'Este check-in já terminou.',
    failed: 'Não foi possível. Tente de novo.',
  },
};

const en: typeof pt = {
  heading: 'Check-in',
  open: 'Check in',
  intro: 'If you do not say you are safe by the time set, Alerta alerts your contacts by itself.',
  minutes: (m: number) => `${m} min`,
  custom: 'Other (minutes)',
  note: 'Note for your contacts (optional)',
  start: 'Start check-in',
  starting: 'Starting…',
  close: 'Close',
  left: (time: string) => `${time} left`,
  dueAt: (time: string) => `Until ${time}`,
  overdue: (time: string) => `Time is up: your contacts are alerted at ${time} unless you say you are safe.`,
  safe: 'I’m safe',
  pin: 'PIN',
  extend: '+15 min',
  signIn: 'Sign in on this phone',
  waiting: 'No network: "I’m safe" is queued and goes out when online.',
  done: 'Check-in ended. Nobody was alerted.',
  fired: 'The check-in was not ended in time: your contacts were alerted.',
  allClear: 'If you are safe, tell them:',
  livePage: 'See the live alert',
  firedSignIn: 'To see the alert and say you are safe, sign in on this phone.',
  homeScreen: 'On iPhone, reminders only arrive with Alerta opened from its home-screen icon (iOS 16.4 or later).',
  errors: {
    offline:
      'No network: a check-in needs the server and was not started. In an emergency, use the alert button or "Send from my phone (SMS)".',
    running: 'A check-in is already running.',
    inactive: 'The subscription is not active: the check-in cannot start.',
    unconfirmed: 'Confirm your e-mail to use check-ins.',
    wrong_pin: 'Wrong PIN.',
    pin_locked:
      'Too many wrong PINs: no PIN is accepted until the hour is over. If the check-in fired, your contacts were alerted.',
    proof: 'Only the owner can end or postpone this check-in: sign in once on this phone and try again.',
    too_long: 'A check-in lasts 24 hours at most.',
    ended: 'This check-in has already ended.',
    failed: 'That did not work. Try again.',
  },
};

export type CheckinStrings = typeof pt;
export const checkinStringsFor = (language: Language): CheckinStrings => (language === 'en' ? en : pt);

/** "1:05:09" or "4:09": the time left, never negative. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}
