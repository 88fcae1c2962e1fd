/** Portuguese texts of the owner's devices in Setup (part of pt.ts). */
export const devices = {
  devices: {
    title: 'Dispositivos',
    intro:
      'Os telemóveis e navegadores onde iniciou sessão: os alertas enviados deles são reconhecidos como seus, e só deles se pode terminar um alerta seu. Remova os que não reconhece: quem tiver uma cópia da chave deixa de a poder usar.',
    unknown: 'Dispositivo desconhecido',
    current: 'Este dispositivo',
    lastUsed: 'Última utilização: {{when}}',
    neverUsed: 'Adicionado: {{when}} (ainda não usado)',
    none: 'Nenhum dispositivo tem uma chave. Com a sessão iniciada, abra o botão de emergência no seu telemóvel para que os alertas dele sejam seus.',
    removeNamed: 'Remover {{name}}',
    removeConfirm:
      'Remover {{name}}? Termina só a chave dele: os alertas enviados dele deixam de ser reconhecidos como seus e ele sai desta lista. Se tiver a sessão iniciada nesse navegador, ela continua iniciada; para a terminar também, use “Terminar sessão em todo o lado”.',
    removeCurrentConfirm:
      'Remover este dispositivo ({{name}})? Termina só a chave dele: os alertas enviados daqui deixam de ser reconhecidos como seus até voltar a iniciar sessão. A sessão aqui continua iniciada.',
    removeYes: 'Sim, remover',
    removed: 'Dispositivo removido.',
    removeFailed: 'Não foi possível remover o dispositivo. Tente novamente.',
    alreadyGone: 'Este dispositivo já tinha sido removido.',
    loadFailed: 'Não foi possível carregar os dispositivos.',
    retry: 'Carregar os dispositivos de novo',
    everywhere: 'Terminar sessão em todo o lado',
    everywhereConfirm: 'Terminar todas as sessões e remover todos os dispositivos, incluindo este?',
    everywhereYes: 'Sim, terminar todas',
    everywhereFailed: 'Não foi possível terminar as sessões. Tente novamente.',
  },
};
