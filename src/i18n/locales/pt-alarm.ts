/** Textos dos alertas ativos do dono, na página inicial (parte de pt.ts) e na página de emergência (src/alert/live-strings.ts). */
export const alarm = {
  alarm: {
    title: 'Alertas ativos',
    why: {
      button: 'Alerta enviado às {{time}}.',
      missed_daily: 'Não fez o check-in diário: os seus contactos foram alertados às {{time}}.',
      missed_checkin: 'O check-in não foi terminado: os seus contactos foram alertados às {{time}}.',
    },
    since: 'Sem sinal seu desde {{when}}.',
    onTheWay: 'Quem vem a caminho',
    nobody: 'Ainda ninguém respondeu.',
    someone: 'Alguém',
    responder: '{{name}} vai a caminho ({{time}})',
    via: { link: 'pela ligação de um contacto', sms: 'por SMS', call: 'pela chamada' },
    safe: 'Estou em segurança',
    confirmTitle: 'Terminar o alerta?',
    confirmBody: 'A página dos contactos passa a dizer que está em segurança e ninguém recebe chamadas.',
    notify: 'Avisar os contactos por SMS de que estou bem',
    confirm: 'Sim, estou em segurança',
    back: 'Voltar',
    resolving: 'A terminar o alerta…',
    resolved: 'Alerta terminado: está em segurança.',
    allClearSent: 'Os contactos vão receber um SMS a dizer que está bem.',
    failed: 'Não foi possível terminar o alerta. Verifique a rede e tente de novo.',
  },
};
