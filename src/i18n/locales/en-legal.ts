import type { legal as pt } from './pt-legal';

/** English texts of the terms and privacy pages (part of en.ts). */
export const legal: typeof pt = {
  legal: {
    title: 'Terms of use',
    intro: 'By using Alerta you accept these terms. Please read them carefully, above all the first section.',
    updated: 'Last updated: 22 November 2026.',
    sections: {
      emergency: {
        title: 'Alerta does not replace 112 or 911',
        body: 'Alerta warns the people you trust. It does not contact the police, fire brigade or ambulance services. In immediate danger, always call 112 (or 911). SMS delivery depends on the mobile network and third parties and can be delayed or fail.',
      },
      service: {
        title: 'The service',
        body: 'With one tap, Alerta sends a predefined message by SMS to your emergency contacts, with your location when your plan and phone allow it. You get a test link, which sends no real SMS, and a real emergency link.',
      },
      account: {
        title: 'Your account',
        body: 'You are responsible for your account details and for keeping your password and personal links secret. If a link is shared by mistake, generate a new one on the Setup page. Only add contacts who agree to receive your alerts.',
      },
      subscription: {
        title: 'Subscription and payments',
        body: 'The Basic plan costs €3 per month (3 contacts) and Premium €5 per month (GPS and up to 10 contacts). Each SMS sent costs an extra €0.08. The free trial lasts 3 days, requires a card and renews automatically into paid Premium unless you cancel it. You can manage or cancel your subscription at any time.',
      },
      delivery: {
        title: 'Message delivery',
        body: 'We do our best to deliver every alert quickly and retry when sending fails, but we cannot guarantee delivery or delivery time, which depend on mobile operators, the network and your phone. Test Alerta regularly with the test link.',
      },
      use: {
        title: 'Acceptable use',
        body: 'Do not use Alerta to send false, harassing or advertising messages, or to contact people who have not agreed to it. We may suspend accounts that are abused.',
      },
      liability: {
        title: 'Liability',
        body: 'Alerta is provided as is. To the extent permitted by law, we are not liable for damage resulting from alerts that are delayed, not delivered or sent by mistake.',
      },
      changes: {
        title: 'Changes',
        body: 'We may update these terms. We announce important changes by e-mail before they take effect.',
      },
      contact: {
        title: 'Contact',
        body: 'Questions about these terms: ajuda@alerta.app.',
      },
    },
  },
  privacy: {
    title: 'Privacy policy',
    intro: 'We collect only what we need to send your alerts. This page explains what, why and for how long.',
    updated: 'Last updated: 22 November 2026.',
    sections: {
      collection: {
        title: 'Data we collect',
        body: 'Account: username, e-mail and password (stored only as a hash). Emergency contacts: name, phone number and relationship. Alerts: time, mode (test or real), delivery status and, if you allow it, your location at the time of the alert. Payments: the state of your subscription; card details stay with the payment provider.',
      },
      usage: {
        title: 'How we use data',
        body: 'We use data only to provide the service: sending alerts to your contacts, confirming your account, managing your subscription and protecting the service from abuse. We do not sell data or use it for advertising.',
      },
      location: {
        title: 'Location',
        body: 'Your location is only read when you open the emergency page and is only sent with an alert. Live-location history is deleted after 30 days, and live-location pages show nothing 24 hours after the alert ends.',
      },
      thirdParties: {
        title: 'Third parties',
        body: 'We share the contact’s number and the alert text with the SMS provider (Twilio) to deliver it, and your e-mail and subscription with the payment provider (Stripe) to charge you. Both process the data under their own policies and for that purpose only.',
      },
      retention: {
        title: 'Retention',
        body: 'We keep your account and contacts for as long as the account exists. When you delete your account we delete your contacts, alerts, deliveries and sessions; billing records are kept for as long as the law requires.',
      },
      security: {
        title: 'Security',
        body: 'Connections are encrypted (HTTPS), passwords are stored with argon2id, sessions expire and your personal links can be renewed at any time. Repeated login and sending attempts are rate limited.',
      },
      rights: {
        title: 'Your rights',
        body: 'You can access, correct and export your data, object to its processing, and delete your account at any time on the Setup page. You can also complain to your data protection authority (in Portugal, the CNPD).',
      },
      contact: {
        title: 'Contact',
        body: 'For any request about your data: ajuda@alerta.app.',
      },
    },
  },
};
