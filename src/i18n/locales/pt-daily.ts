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
    alarm_one: 'Se não fizer o check-in até às {{until}}, {{names}} recebe um SMS.',
    alarm_other: 'Se não fizer o check-in até às {{until}}, {{names}} recebem um SMS.',
    alarmUnknown: 'Se não fizer o check-in até às {{until}}, os seus contactos recebem um SMS.',
    pausedSentence: 'Em pausa até {{date}}: nada é pedido e ninguém é alertado antes disso.',
    offSentence: 'Desligado: ninguém é alertado. Depois de o ativar e guardar: {{sentence}}',
    graceHint: 'De 1 a 1440 minutos (24 horas).',
    graceBounds: 'Escreva um número inteiro de minutos, de 1 a 1440.',
    alarmNobody:
      'Se não fizer o check-in até às {{until}}, os seus contactos recebem um SMS (ainda não tem contactos).',
    and: ' e ',
    nextDue: 'Próximo check-in até {{when}}.',
    paused: 'Em pausa até {{date}}: retoma sozinho.',
    alertsAt: 'Os seus contactos são alertados às {{time}} se não tocar em “Estou bem hoje”.',
    doneAt: 'Feito hoje às {{time}} ✓',
    status: {
      off: 'Desligado',
      waiting: 'À espera do próximo check-in',
      due: 'Check-in em falta: toque em “Estou bem hoje”',
      missed: 'Check-in falhado: os seus contactos foram alertados',
      paused: 'Em pausa',
    },
    push: {
      on: 'Este telemóvel recebe o lembrete diário como notificação, além do e-mail.',
      off: 'O lembrete diário chega por e-mail. Para o receber também como notificação neste telemóvel, abra aqui a sua página de emergência e toque em “Lembrar-me aqui”.',
      open: 'Abrir a página de emergência',
      denied:
        'As notificações do Alerta estão bloqueadas neste navegador: o lembrete diário chega só por e-mail. Pode permiti-las nas definições do navegador.',
      unsupported: 'Este navegador não mostra notificações: o lembrete diário chega só por e-mail.',
      homeScreen:
        'No iPhone, o lembrete só chega como notificação com o Alerta aberto pelo ícone no ecrã principal (iOS 16.4 ou posterior). O e-mail chega na mesma.',
      noKey:
        'O lembrete diário chega por e-mail. Para o receber como notificação, entre no Alerta no telemóvel que usa e toque aí em “Lembrar-me aqui” na sua página de emergência.',
    },
    ok: 'Estou bem hoje',
    okDone: 'Check-in feito. Obrigado!',
    /** While the missed day's alert is open: "I'm OK today" ends it too. */
    okNotify: 'Terminar o alerta e avisar os contactos por SMS de que estou bem',
    okFailed: 'Não foi possível fazer o check-in. Tente de novo.',
  },
};
