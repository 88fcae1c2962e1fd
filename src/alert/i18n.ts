import { DEFAULT_LANGUAGE, LANG_STORAGE_KEY, LANGUAGES, type Language } from '../../common/constants';
import { SHELL_STRINGS } from '../../common/emergency-shell';

/**
 * The strings the emergency page counts down and sends with, and the test page shares; kept here
 * so the page loads none of the app's locales. The sign-in's (sign-in-strings.ts) and the test
 * page's own (test-strings.ts) load with them, after the countdown.
 */
const pt = {
  ...SHELL_STRINGS.pt,
  title: 'Emergência',
  loading: 'A preparar o alerta…',
  contactsHeading: 'Contactos',
  noContacts: 'Sem contactos guardados neste telefone.',
  cancelled: 'Alerta cancelado. Nada foi enviado.',
  sendNow: 'Enviar alerta agora',
  sendAgain: 'Enviar novo alerta',
  sending: 'A enviar o alerta…',
  sent: 'Alerta enviado',
  sentAt: (time: string) => `Alerta enviado às ${time}`,
  queued: 'Sem rede: o alerta está em fila e será enviado quando houver ligação.',
  retryAt: (s: number) => `Demasiados alertas seguidos: nova tentativa dentro de ${s} s.`,
  invalidLink:
    'Esta ligação de emergência não é válida (foi renovada ou não existe): nenhum alerta pode ser enviado por ela. Entre no Alerta e guarde a nova ligação «Emergência real», em Configurar.',
  inactive:
    'A subscrição deste alerta não está ativa: o Alerta não pode enviar o alerta. Renove-a em Preços, com a sessão iniciada no Alerta. Até lá, avise os seus contactos do seu telemóvel (SMS).',
  failed: 'O alerta não foi aceite. Envie-o do seu telemóvel.',
  recentlyAlerted:
    'Os seus contactos foram alertados há pouco: este alerta ficou registado e eles acompanham-no pela ligação em direto.',
  numberBusy:
    'Alguns contactos não receberam SMS: o número deles recebeu demasiadas mensagens na última hora. Avise-os também do seu telemóvel (SMS).',
  status: {
    queued: 'em fila',
    sending: 'a enviar',
    sent: 'enviado',
    delivered: 'entregue',
    failed: 'falhou',
    withheld: 'já alertado há pouco',
    busy: 'não enviado: número ocupado',
    opted_out: 'não enviado: respondeu STOP ao Alerta',
  } as Record<string, string>,
  gpsSearching: 'A procurar a localização…',
  gpsFix: (m: number) => `Localização obtida (precisão ${m} m)`,
  gpsDenied: 'Localização não autorizada: o alerta sai sem ela.',
  gpsUnavailable: 'Localização indisponível: o alerta sai sem ela.',
  gpsOff: 'O seu plano não inclui localização.',
  smsFallback: 'Enviar do meu telemóvel (SMS)',
  smsFallbackHint: 'Abre a aplicação de mensagens com o texto e todos os contactos; não precisa de dados.',
  /** Without the owner's proof the page has the contacts' numbers masked: no SMS can be built. */
  smsFallbackMasked:
    'Para enviar o alerta do seu telemóvel por SMS, este telemóvel precisa dos números completos dos contactos: inicie sessão uma vez em «É o seu telemóvel?», no fim da página. Até lá, pode copiar a mensagem:',
  install: 'Instalar o botão de emergência',
  installIos: 'No iPhone: toque em Partilhar e depois em «Adicionar ao ecrã principal» para ter este alerta num toque.',
  installed: 'Instalado no ecrã principal.',
  offlineUnavailable: 'Não disponível sem rede neste navegador: com rede, o alerta sai na mesma.',
  iosDataWarning:
    'No Safari, sem a instalar no ecrã principal, o iPhone pode apagar os dados guardados desta página após 7 dias sem uso.',
  newVersion: 'Há uma nova versão do Alerta.',
  reload: 'Atualizar',
};

const en: typeof pt = {
  ...SHELL_STRINGS.en,
  title: 'Emergency',
  loading: 'Preparing the alert…',
  contactsHeading: 'Contacts',
  noContacts: 'No contacts saved on this phone.',
  cancelled: 'Alert cancelled. Nothing was sent.',
  sendNow: 'Send the alert now',
  sendAgain: 'Send a new alert',
  sending: 'Sending the alert…',
  sent: 'Alert sent',
  sentAt: (time: string) => `Alert sent at ${time}`,
  queued: 'No network: the alert is queued and will be sent when online.',
  retryAt: (s: number) => `Too many alerts in a row: trying again in ${s} s.`,
  invalidLink:
    'This emergency link is not valid (it was renewed or does not exist): no alert can be sent with it. Log in to Alerta and save the new “Real Emergency” link from Setup.',
  inactive:
    "This alert's subscription is not active: Alerta cannot send the alert. Renew it under Pricing, logged in to Alerta. Until then, tell your contacts from your phone (SMS).",
  failed: 'The alert was not accepted. Send it from your phone.',
  recentlyAlerted:
    'Your contacts were alerted a moment ago: this alert is recorded and they follow it on the live link.',
  numberBusy:
    'Some contacts got no SMS: their number received too many messages in the last hour. Tell them from your phone too (SMS).',
  status: {
    queued: 'queued',
    sending: 'sending',
    sent: 'sent',
    delivered: 'delivered',
    failed: 'failed',
    withheld: 'alerted a moment ago',
    busy: 'not sent: number busy',
    opted_out: 'not sent: replied STOP to Alerta',
  },
  gpsSearching: 'Finding your location…',
  gpsFix: (m: number) => `Location found (accuracy ${m} m)`,
  gpsDenied: 'Location not allowed: the alert goes without it.',
  gpsUnavailable: 'Location unavailable: the alert goes without it.',
  gpsOff: 'Your plan does not include location.',
  smsFallback: 'Send from my phone (SMS)',
  smsFallbackHint: 'Opens your messages app with the text and every contact; needs no data connection.',
  smsFallbackMasked:
    'To send the alert from your phone by SMS, this phone needs your contacts’ full numbers: sign in once under “Is this your phone?” at the bottom of the page. Until then you can copy the message:',
  install: 'Install the emergency button',
  installIos: 'On iPhone: tap Share, then "Add to Home Screen" to have this alert one tap away.',
  installed: 'Installed on the home screen.',
  offlineUnavailable: 'Not available offline in this browser: with a network, the alert still goes.',
  iosDataWarning:
    "In Safari, unless it is added to the Home Screen, the iPhone may delete this page's saved data after 7 days without use.",
  newVersion: 'A new version of Alerta is available.',
  reload: 'Reload',
};

export type Strings = typeof pt;

/** The owner's language when known, else the one saved by the app, else Portuguese. */
export function pickLanguage(ownerLanguage?: string | null): Language {
  const known = (value: string | null | undefined): value is Language =>
    (LANGUAGES as readonly string[]).includes(value ?? '');
  if (known(ownerLanguage)) return ownerLanguage;
  try {
    const saved = localStorage.getItem(LANG_STORAGE_KEY);
    if (known(saved)) return saved;
  } catch {
    // Storage blocked: fall through to the default.
  }
  return DEFAULT_LANGUAGE;
}

/** The strings of one language. */
export const stringsFor = (language: Language): Strings => (language === 'en' ? en : pt);
