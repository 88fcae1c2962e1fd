import { DEFAULT_LANGUAGE, LANG_STORAGE_KEY, LANGUAGES, type Language } from '../../common/constants';
import { SHELL_STRINGS } from '../../common/emergency-shell';

/** Every string of the emergency and test pages; kept here so the page loads none of the app's locales. */
const pt = {
  ...SHELL_STRINGS.pt,
  title: 'Emergência',
  testTitle: 'Teste de emergência',
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
  checkStorage: 'Armazenamento persistente',
  storageGranted: 'Concedido: o navegador não apaga os dados guardados sem perguntar.',
  storageNotGranted: 'Não concedido: o navegador pode apagar os dados guardados se faltar espaço.',
  newVersion: 'Há uma nova versão do Alerta.',
  reload: 'Atualizar',
  ownerSignIn: 'É o seu telemóvel? Inicie sessão uma vez para que este botão seja seu',
  ownerSignInHint:
    'Os alertas deste telemóvel passam a ser seus: nunca são recusados nem retidos por limites que outras pessoas gastaram. A sessão termina logo a seguir; fica só uma chave neste telemóvel.',
  username: 'Nome de utilizador ou e-mail',
  password: 'Palavra-passe',
  signIn: 'Iniciar sessão',
  signingIn: 'A iniciar sessão…',
  signedIn: 'Este botão é agora seu: os alertas deste telemóvel seguem como seus.',
  signInProblem: {
    wrong: 'Nome de utilizador ou palavra-passe errados.',
    notVerified: 'Confirme primeiro o seu e-mail (pela mensagem que lhe enviámos).',
    later: 'Demasiadas tentativas: tente de novo daqui a pouco.',
    failed: 'Não foi possível iniciar sessão agora. Tente de novo com rede.',
  },
  // Test page
  dryRun: 'Verificação (nada é enviado)',
  checking: 'A verificar…',
  pass: 'OK',
  fail: 'Falhou',
  warn: 'Atenção',
  checkToken: 'Ligação válida',
  checkSubscription: 'Subscrição ativa',
  checkContacts: 'Contactos',
  contactsCount: (n: number) => (n === 1 ? '1 contacto' : `${n} contactos`),
  checkNetwork: 'Rede',
  online: 'Ligado ao servidor',
  offline: 'Sem ligação ao servidor',
  checkLocation: 'Localização',
  checkOffline: 'Funciona sem rede',
  offlineReady: 'A página e os contactos estão guardados neste telefone.',
  offlineNotReady: 'Ainda não guardada: abra esta página uma vez com rede e volte a verificar.',
  checkInstall: 'Instalação',
  installAvailable: 'Pode ser instalada: use o botão abaixo.',
  installNotOffered:
    'O navegador não ofereceu instalação; use o menu do navegador («Instalar» ou «Adicionar ao ecrã»).',
  messageHeading: 'Mensagem que os contactos recebem num alerta real',
  liveLinkNote: 'A ligação no fim é criada para cada alerta: abre a página onde os contactos acompanham a sua posição.',
  sendTestSms: 'Enviar SMS de teste',
  testSmsSent: 'SMS de teste enviado (marcado TESTE).',
  testSmsFailed: 'O SMS de teste não foi enviado. Tente de novo daqui a pouco.',
  noTestContact:
    'Para receber um SMS de teste, dê a um contacto um nome começado por TESTE (por exemplo «TESTE Maria»).',
  testContact: 'Quem recebe o SMS de teste',
  testContactHint: 'Só esse contacto recebe um SMS, marcado TESTE. No máximo 5 por hora.',
  runAgain: 'Verificar de novo',
};

const en: typeof pt = {
  ...SHELL_STRINGS.en,
  title: 'Emergency',
  testTitle: 'Emergency test',
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
  checkStorage: 'Persistent storage',
  storageGranted: 'Granted: the browser will not delete the saved data without asking.',
  storageNotGranted: 'Not granted: the browser may delete the saved data when space runs low.',
  newVersion: 'A new version of Alerta is available.',
  reload: 'Reload',
  ownerSignIn: 'Is this your phone? Sign in once to make this button yours',
  ownerSignInHint:
    "This phone's alerts then count as yours: never refused or held back by limits other people used up. The session ends right away; only a key stays on this phone.",
  username: 'Username or e-mail',
  password: 'Password',
  signIn: 'Sign in',
  signingIn: 'Signing in…',
  signedIn: "This button is now yours: this phone's alerts go as yours.",
  signInProblem: {
    wrong: 'Wrong username or password.',
    notVerified: 'Confirm your e-mail first (from the message we sent you).',
    later: 'Too many tries: try again in a moment.',
    failed: 'Could not sign in now. Try again with a network.',
  },
  dryRun: 'Check (nothing is sent)',
  checking: 'Checking…',
  pass: 'OK',
  fail: 'Failed',
  warn: 'Warning',
  checkToken: 'Valid link',
  checkSubscription: 'Active subscription',
  checkContacts: 'Contacts',
  contactsCount: (n: number) => (n === 1 ? '1 contact' : `${n} contacts`),
  checkNetwork: 'Network',
  online: 'Connected to the server',
  offline: 'No connection to the server',
  checkLocation: 'Location',
  checkOffline: 'Works offline',
  offlineReady: 'The page and contacts are saved on this phone.',
  offlineNotReady: 'Not saved yet: open this page once with a network and check again.',
  checkInstall: 'Install',
  installAvailable: 'Can be installed: use the button below.',
  installNotOffered: 'The browser did not offer to install; use its menu ("Install" or "Add to Home screen").',
  messageHeading: 'The message your contacts get in a real alert',
  liveLinkNote:
    'The link at the end is made for each alert: it opens the page where your contacts follow your position.',
  sendTestSms: 'Send a test SMS',
  testSmsSent: 'Test SMS sent (marked TEST).',
  testSmsFailed: 'The test SMS was not sent. Try again in a moment.',
  noTestContact: 'To receive a test SMS, give one contact a name starting with TEST (for example "TEST Maria").',
  testContact: 'Who gets the test SMS',
  testContactHint: 'Only that contact gets an SMS, marked TEST. At most 5 an hour.',
  runAgain: 'Check again',
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
