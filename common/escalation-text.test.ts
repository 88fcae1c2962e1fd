import { describe, expect, it } from 'vitest';
import { CALL_VOICE_LANGUAGE, callReply, callScript, escalationSms } from './escalation-text.js';
import { smsParts } from './sms-encoding.js';

const LIVE = 'https://alerta.example.com/a/ZtJ1qMCe4JTAVQ0ufvdhaw?c=Qm9vbGVhbkZsYWc';
// 03:12 in Lisbon in summer (UTC+1).
const SENT = Date.UTC(2026, 6, 15, 2, 12);

describe('the escalation call', () => {
  it('says who needs help, when they sent the alert in their time zone, where the SMS is, and to press 1', () => {
    expect(callScript({ language: 'pt', ownerName: 'Ana Sousa', timeZone: 'Europe/Lisbon', sentAt: SENT })).toBe(
      'Ana Sousa precisa de ajuda. Enviou um alerta de emergência às 03:12. ' +
        'A mensagem que lhe enviámos tem a localização e uma ligação para acompanhar. Prima 1 se vai ajudar.',
    );
    expect(callScript({ language: 'en', ownerName: 'Ana Sousa', timeZone: 'America/New_York', sentAt: SENT })).toBe(
      'Ana Sousa needs help. They sent an emergency alert at 22:12. ' +
        'The text message we sent you has their location and a live link. Press 1 if you will help.',
    );
  });

  it('names the time in UTC when the owner has no time zone, and speaks a cleaned name', () => {
    const script = callScript({ language: 'en', ownerName: ' Ana\u200b\nSousa ', sentAt: SENT });
    expect(script).toMatch(/^Ana Sousa needs help\. They sent an emergency alert at 02:12 UTC\./);
  });

  it('thanks a contact who pressed 1, and tells one who pressed another key how to answer', () => {
    expect(callReply({ language: 'pt', ownerName: 'Ana Sousa', helping: true })).toBe(
      'Obrigado. Ana Sousa vai saber que vai a caminho.',
    );
    expect(callReply({ language: 'en', ownerName: 'Ana Sousa', helping: true })).toBe(
      'Thank you. Ana Sousa will see that you are on your way.',
    );
    expect(callReply({ language: 'pt', ownerName: 'Ana', helping: false })).toBe(
      'Não ficou registada nenhuma resposta. Para dizer que vai ajudar, prima 1.',
    );
    expect(callReply({ language: 'en', ownerName: 'Ana', helping: false })).toBe(
      'No answer was recorded. To say you will help, press 1.',
    );
  });

  it('speaks each language in its own voice', () => {
    expect(CALL_VOICE_LANGUAGE).toEqual({ pt: 'pt-PT', en: 'en-GB' });
  });
});

describe('the second round of SMS', () => {
  it('says nobody has answered yet, who needs help, and the live link', () => {
    expect(escalationSms({ language: 'en', ownerName: 'Ana Sousa', liveUrl: LIVE })).toBe(
      `Still no answer from anyone: Ana Sousa needs help. Follow: ${LIVE}`,
    );
    expect(escalationSms({ language: 'pt', ownerName: 'Ana Sousa', liveUrl: LIVE })).toBe(
      `Ainda ninguém respondeu: Ana Sousa precisa de ajuda. Acompanhe: ${LIVE}`,
    );
  });

  it('keeps a very long name within two parts and the link whole', () => {
    const text = escalationSms({ language: 'pt', ownerName: 'Maria '.repeat(40), liveUrl: LIVE });
    expect(smsParts(text)).toBeLessThanOrEqual(2);
    expect(text.endsWith(` Acompanhe: ${LIVE}`)).toBe(true);
  });
});
