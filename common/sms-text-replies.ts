/**
 * The SMS Alerta sends a contact outside the alert itself: the invitation when an owner adds
 * them, the help text for a reply not understood, "which alert?" when several of the
 * number's owners have alerts open, and the line saying an "on my way" reply was taken. Pure; each within `SMS_MAX_PARTS`.
 */

import { smsParts, transliterate } from './sms-encoding.js';
import { fitSms, type Headline, SMS_MAX_PARTS, smsName } from './sms-fit.js';
import type { AlertLanguage } from './sms-text.js';

const INVITATION = {
  pt: {
    headline: [
      'Alerta: ',
      ' adicionou-o como contacto de emergência. Se precisar de ajuda, recebe um SMS com a localização e um link para acompanhar.',
    ],
    details: [' Responda SIM para confirmar, STOP para não receber nada do Alerta.'],
    privacy: ' Privacidade: ',
  },
  en: {
    headline: [
      'Alerta: ',
      ' added you as an emergency contact. If they need help, you get an SMS with their location and a link to follow.',
    ],
    details: [' Reply YES to confirm, STOP to receive nothing from Alerta.'],
    privacy: ' Privacy: ',
  },
} as const satisfies Record<AlertLanguage, { headline: Headline; details: readonly string[]; privacy: string }>;

/** The invitation in the owner's language: who, what and when, how to confirm or opt out, the privacy page. */
export function invitationMessage(input: { language: AlertLanguage; ownerName: string; privacyUrl: string }): string {
  const texts = INVITATION[input.language] ?? INVITATION.en;
  return fitSms({
    ownerName: input.ownerName,
    headline: texts.headline,
    details: texts.details,
    link: { label: texts.privacy, url: input.privacyUrl },
  });
}

/** The help text, in both languages: the number may be the contact of owners of either. */
export const HELP_MESSAGE =
  'Alerta: durante um alerta responda 1 se vai a caminho; SIM confirma, STOP para tudo. During an alert reply 1 if you are on your way; YES confirms, STOP stops all.';

const WHICH = {
  pt: {
    ask: 'Alerta: vários alertas abertos. Vai a caminho de quem? Responda',
    option: (n: number, name: string) => ` ${n} para ${name}`,
  },
  en: {
    ask: 'Alerta: several alerts are open. Who are you on your way to? Reply',
    option: (n: number, name: string) => ` ${n} for ${name}`,
  },
} as const;

/** "Which alert?": one numbered option per owner, by name, within two parts (accents, then names, give way). */
export function whichMessage(language: AlertLanguage, names: string[]): string {
  const texts = WHICH[language] ?? WHICH.en;
  let text = '';
  for (const keep of [20, 12, 6, 2]) {
    const options = names.map((name, index) => texts.option(index + 1, [...smsName(name)].slice(0, keep).join('')));
    text = `${texts.ask}${options.join(',')}.`;
    for (const form of [text, transliterate(text)]) if (smsParts(form) <= SMS_MAX_PARTS) return form;
  }
  return transliterate(text);
}

const ENDED = {
  pt: (choice: number) => `Alerta: o alerta que escolheu (${choice}) já terminou. Nada foi registado.`,
  en: (choice: number) => `Alerta: the alert you chose (${choice}) has already ended. Nothing was recorded.`,
} as const;

/** The answer to a "which alert?" digit whose alert has ended since: one part, in the question's language. */
export function endedMessage(language: AlertLanguage, choice: number): string {
  return (ENDED[language] ?? ENDED.en)(choice);
}

const TAKEN = {
  pt: ['Alerta: resposta recebida. ', ' vê que vai a caminho.'],
  en: ['Alerta: answer received. ', ' can see you are on your way.'],
} as const satisfies Record<AlertLanguage, Headline>;

/** The one line a contact's "1" gets back: their answer was taken and the owner sees it. */
export function takenMessage(language: AlertLanguage, ownerName: string): string {
  return fitSms({ ownerName, headline: TAKEN[language] ?? TAKEN.en, details: [''] });
}
