/** Textos do check-in diário (parte de pt.ts). */
export const daily = {
  daily: {
    title: 'Check-in diário',
    intro:
      'Para quem vive sozinho: um toque por dia em “Estou bem hoje”. Se um dia não o fizer, os seus contactos recebem um alerta real, com a sua última localização conhecida.',
    enabled: 'Ativar o check-in diário',
    time: 'Até às',
    everyDays: 'De quantos em quantos dias',
    grace: 'Minutos de tolerância antes do alerta',
    pausedUntil: 'Pausa até (viagem, hospital acompanhado)',
    save: 'Guardar check-in diário',
    saved: 'Check-in diário guardado.',
    failed: 'Não foi possível guardar o check-in diário. Tente de novo.',
    premium: 'O check-in diário faz parte do Premium (e do período de teste).',
    everyDay: 'Todos os dias antes das {{time}}.',
    everyNDays: 'De {{count}} em {{count}} dias, antes das {{time}}.',
    alarm: 'Se não fizer o check-in até às {{until}}, {{names}} recebem um SMS.',
    alarmNobody:
      'Se não fizer o check-in até às {{until}}, os seus contactos recebem um SMS (ainda não tem contactos).',
    and: ' e ',
    nextDue: 'Próximo check-in até {{when}}.',
    paused: 'Em pausa até {{date}}: retoma sozinho.',
    status: {
      off: 'Desligado',
      waiting: 'À espera do próximo check-in',
      due: 'Check-in em falta: toque em “Estou bem hoje”',
      missed: 'Check-in falhado: os seus contactos foram alertados',
      paused: 'Em pausa',
    },
    ok: 'Estou bem hoje',
    okDone: 'Check-in feito. Obrigado!',
    okFailed: 'Não foi possível fazer o check-in. Tente de novo.',
  },
};
