/** Portuguese texts (the default language). Every key here must exist in en.ts too. */
const pt = {
  app: { name: 'Alerta', tagline: 'Um toque envia um SMS com a sua localização às pessoas em quem confia.' },
  nav: {
    home: 'Início',
    setup: 'Configurar',
    pricing: 'Preços',
    terms: 'Termos',
    privacy: 'Privacidade',
    language: 'Idioma',
    pt: 'Português',
    en: 'English',
    main: 'Navegação principal',
  },
  home: {
    login: 'Entrar',
    register: 'Criar conta',
    bullets: {
      one: 'Um toque: o alerta sai sozinho após uma contagem curta que pode cancelar.',
      two: 'Funciona sem dados: o alerta fica em fila e sai assim que houver rede, ou envie-o do seu telemóvel.',
      three: 'Os seus contactos recebem um SMS com quem precisa de ajuda e onde.',
    },
    notReplacement: 'O Alerta não substitui o 112. Em perigo imediato, ligue 112.',
  },
  footer: { copyright: '© {{year}} Alerta', contact: 'Contacto: {{email}}' },
  common: { loading: 'A carregar…', back: 'Voltar', comingSoon: 'Esta página estará disponível em breve.' },
  alert: { title: 'Emergência', loading: 'A preparar o alerta…' },
};

export default pt;
export type Messages = typeof pt;
