import type { Messages } from './pt';

/** English texts (the fallback language). */
const en: Messages = {
  app: { name: 'Alerta', tagline: 'One tap sends an SMS with your location to the people you trust.' },
  nav: {
    home: 'Home',
    setup: 'Setup',
    pricing: 'Pricing',
    terms: 'Terms',
    privacy: 'Privacy',
    language: 'Language',
    pt: 'Português',
    en: 'English',
    main: 'Main navigation',
  },
  home: {
    login: 'Log in',
    register: 'Create account',
    bullets: {
      one: 'One tap: the alert goes out by itself after a short countdown you can cancel.',
      two: 'Works without data: the alert is queued and goes out as soon as there is a network, or send it from your phone.',
      three: 'Your contacts get an SMS saying who needs help and where.',
    },
    notReplacement: 'Alerta does not replace 112 or 911. In immediate danger, call 112 or 911.',
  },
  footer: { copyright: '© {{year}} Alerta', contact: 'Contact: {{email}}' },
  common: { loading: 'Loading…', back: 'Back', comingSoon: 'This page will be available soon.' },
  alert: { title: 'Emergency', loading: 'Preparing the alert…' },
};

export default en;
