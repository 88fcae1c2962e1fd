/**
 * What Alerta says when nobody has answered a real alert: the voice call to each contact who
 * has not acknowledged, and the second round of SMS sent at the same moment. Pure and
 * browser-safe: the server speaks and sends them, the dev outbox and the tests read them.
 */

import { clockIn } from './profile-rules.js';
import { fitSms, type Headline, smsName } from './sms-fit.js';
import type { AlertLanguage } from './sms-text.js';

/** The digit a contact presses during the call to say they will help. */
export const ESCALATION_ACK_DIGIT = '1';

/** The voice the call speaks in, per owner language (Twilio `<Say language>`). */
export const CALL_VOICE_LANGUAGE: Record<AlertLanguage, string> = { pt: 'pt-PT', en: 'en-GB' };

export interface CallScriptInput {
  language: AlertLanguage;
  ownerName: string;
  timeZone?: string | null;
  /** When the alert was stored (epoch ms): the time the call names, in the owner's time zone. */
  sentAt: number;
}

const CALL = {
  pt: (name: string, time: string) =>
    `${name} precisa de ajuda. Enviou um alerta de emergência às ${time}. ` +
    'A mensagem que lhe enviámos tem a localização e uma ligação para acompanhar. ' +
    `Prima ${ESCALATION_ACK_DIGIT} se vai ajudar.`,
  en: (name: string, time: string) =>
    `${name} needs help. They sent an emergency alert at ${time}. ` +
    'The text message we sent you has their location and a live link. ' +
    `Press ${ESCALATION_ACK_DIGIT} if you will help.`,
} as const;

const SMS: Record<AlertLanguage, { headline: Headline; live: string }> = {
  pt: { headline: ['Ainda ninguém respondeu: ', ' precisa de ajuda.'], live: ' Acompanhe: ' },
  en: { headline: ['Still no answer from anyone: ', ' needs help.'], live: ' Follow: ' },
};

/**
 * The words of the call, in the owner's language: who needs help, when they sent the alert,
 * that the SMS holds the location and live link, and which key to press. The call says them
 * twice (server/providers/voice).
 */
export function callScript(input: CallScriptInput): string {
  const script = CALL[input.language] ?? CALL.en;
  return script(smsName(input.ownerName) || '?', clockIn(input.sentAt, input.timeZone) ?? '?');
}

const REPLY = {
  pt: {
    helping: (name: string) => `Obrigado. ${name} vai saber que vai a caminho.`,
    other: `Não ficou registada nenhuma resposta. Para dizer que vai ajudar, prima ${ESCALATION_ACK_DIGIT}.`,
  },
  en: {
    helping: (name: string) => `Thank you. ${name} will see that you are on your way.`,
    other: `No answer was recorded. To say you will help, press ${ESCALATION_ACK_DIGIT}.`,
  },
} as const;

/** What the call says after the contact pressed keys: thanks for 1, else how to answer. */
export function callReply(input: { language: AlertLanguage; ownerName: string; helping: boolean }): string {
  const texts = REPLY[input.language] ?? REPLY.en;
  return input.helping ? texts.helping(smsName(input.ownerName) || '?') : texts.other;
}

/** The second round of SMS: nobody has answered, the owner still needs help, and the live link, always whole. */
export function escalationSms(input: { language: AlertLanguage; ownerName: string; liveUrl: string }): string {
  const texts = SMS[input.language] ?? SMS.en;
  return fitSms({
    ownerName: input.ownerName,
    headline: texts.headline,
    details: [''],
    link: { label: texts.live, url: input.liveUrl },
  });
}
