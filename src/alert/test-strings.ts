import type { Language } from '../../common/constants';
import { type Strings, stringsFor } from './i18n';

/** The test page's own words (its checks, its test SMS), in Portuguese and English. */
const pt = {
  testTitle: 'Teste de emergência',
  checkStorage: 'Armazenamento persistente',
  storageGranted: 'Concedido: o navegador não apaga os dados guardados sem perguntar.',
  storageNotGranted: 'Não concedido: o navegador pode apagar os dados guardados se faltar espaço.',
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
  testTitle: 'Emergency test',
  checkStorage: 'Persistent storage',
  storageGranted: 'Granted: the browser will not delete the saved data without asking.',
  storageNotGranted: 'Not granted: the browser may delete the saved data when space runs low.',
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

export type TestStrings = Strings & typeof pt;
/** The test page's strings with the emergency page's it shares (contacts, install, the new version). */
const withShared: Record<Language, TestStrings> = {
  pt: { ...stringsFor('pt'), ...pt },
  en: { ...stringsFor('en'), ...en },
};
export const testStringsFor = (language: Language): TestStrings => withShared[language];
