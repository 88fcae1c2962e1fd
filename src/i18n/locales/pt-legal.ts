/** Portuguese texts of the terms and privacy pages (part of pt.ts). */
export const legal = {
  legal: {
    title: 'Termos de utilização',
    intro: 'Ao usar o Alerta aceita estes termos. Leia-os com atenção, sobretudo a primeira secção.',
    updated: 'Última atualização: 22 de novembro de 2026.',
    sections: {
      emergency: {
        title: 'O Alerta não substitui o 112',
        body: 'O Alerta avisa as pessoas em quem confia. Não contacta a polícia, os bombeiros nem o INEM. Em perigo imediato, ligue sempre 112. O envio de SMS depende da rede móvel e de terceiros e pode atrasar ou falhar.',
      },
      service: {
        title: 'O serviço',
        body: 'Com um toque, o Alerta envia uma mensagem predefinida por SMS aos seus contactos de emergência, com a sua localização quando o plano e o telemóvel o permitem. Tem uma ligação de teste, que não envia SMS reais, e uma ligação de emergência real.',
      },
      account: {
        title: 'A sua conta',
        body: 'É responsável pelos dados da conta e por manter a palavra-passe e as suas ligações pessoais em segredo. Se uma ligação for partilhada por engano, gere uma nova na página Configurar. Só pode adicionar contactos que consintam receber os seus alertas.',
      },
      subscription: {
        title: 'Subscrição e pagamentos',
        body: 'O plano Básico custa 3 € por mês (3 contactos) e o Premium 5 € por mês (GPS e até 10 contactos). Cada SMS enviado custa mais 0,08 €. O teste gratuito dura 3 dias, exige cartão e renova-se automaticamente para Premium pago, a menos que o cancele. Pode gerir ou cancelar a subscrição a qualquer momento.',
      },
      delivery: {
        title: 'Entrega das mensagens',
        body: 'Fazemos o possível por entregar cada alerta depressa e voltamos a tentar quando falha, mas não garantimos a entrega nem o tempo de entrega, que dependem dos operadores móveis, da rede e do seu telemóvel. Teste o Alerta regularmente com a ligação de teste.',
      },
      use: {
        title: 'Utilização aceitável',
        body: 'Não use o Alerta para enviar mensagens falsas, de assédio ou publicidade, nem para contactar pessoas que não o autorizaram. Podemos suspender contas usadas de forma abusiva.',
      },
      liability: {
        title: 'Responsabilidade',
        body: 'O Alerta é fornecido tal como está. Na medida permitida por lei, não respondemos por danos resultantes de alertas atrasados, não entregues ou enviados por engano.',
      },
      changes: {
        title: 'Alterações',
        body: 'Podemos atualizar estes termos. Avisamos por e-mail das alterações importantes antes de entrarem em vigor.',
      },
      contact: {
        title: 'Contacto',
        body: 'Dúvidas sobre estes termos: ajuda@alerta.app.',
      },
    },
  },
  privacy: {
    title: 'Política de privacidade',
    intro:
      'Recolhemos apenas o necessário para enviar os seus alertas. Esta página explica o quê, porquê e durante quanto tempo.',
    updated: 'Última atualização: 22 de novembro de 2026.',
    sections: {
      collection: {
        title: 'Dados que recolhemos',
        body: 'Conta: nome de utilizador, e-mail e palavra-passe (guardada apenas como hash). Contactos de emergência: nome, número de telemóvel e relação. Alertas: data, modo (teste ou real), estado de entrega e, se o permitir, a localização no momento do alerta. Pagamentos: o estado da subscrição; os dados do cartão ficam só no fornecedor de pagamentos.',
      },
      usage: {
        title: 'Como usamos os dados',
        body: 'Usamos os dados apenas para prestar o serviço: enviar alertas aos seus contactos, confirmar a conta, gerir a subscrição e proteger o serviço contra abusos. Não vendemos dados nem os usamos para publicidade.',
      },
      location: {
        title: 'Localização',
        body: 'A localização só é obtida quando abre a página de emergência e só é enviada com um alerta. O histórico de localização em tempo real é apagado ao fim de 30 dias, e as páginas de localização ao vivo deixam de mostrar qualquer dado 24 horas depois de o alerta terminar.',
      },
      thirdParties: {
        title: 'Terceiros',
        body: 'Partilhamos com o fornecedor de SMS (Twilio) o número do contacto e o texto do alerta, para o entregar, e com o fornecedor de pagamentos (Stripe) o seu e-mail e a subscrição, para cobrar. Ambos tratam os dados segundo as suas políticas e apenas para esse fim.',
      },
      retention: {
        title: 'Conservação',
        body: 'Guardamos a conta e os contactos enquanto a conta existir. Ao apagar a conta, apagamos os contactos, alertas, entregas e sessões; os registos de faturação ficam pelo prazo exigido por lei.',
      },
      security: {
        title: 'Segurança',
        body: 'As ligações são cifradas (HTTPS), as palavras-passe guardadas com argon2id, as sessões expiram e as suas ligações pessoais podem ser renovadas a qualquer momento. Limitamos tentativas repetidas de entrada e de envio.',
      },
      rights: {
        title: 'Os seus direitos',
        body: 'Pode aceder, corrigir e exportar os seus dados, opor-se ao seu tratamento e apagar a conta a qualquer momento na página Configurar. Também pode apresentar queixa à CNPD (autoridade de proteção de dados).',
      },
      contact: {
        title: 'Contacto',
        body: 'Para qualquer pedido sobre os seus dados: ajuda@alerta.app.',
      },
    },
  },
};
