import { describe, expect, it } from 'vitest';
import { smsParts } from '../../common/sms-encoding.js';
import { alertMessage } from '../../common/sms-text.js';
import { endedMessage, HELP_MESSAGE, invitationMessage, whichMessage } from '../../common/sms-text-replies.js';

const LINK = 'https://alerta.example.org/a/AbCdEfGhIjKlMnOpQrStUv?c=AbCdEfGhIjK';
const LONG_NAME = 'Maria da Conceição Gonçalves de Albuquerque e Vasconcelos Ñúñez';
const FAR = { latitude: -33.868_82, longitude: 151.209_29, accuracy: 1234.6, captured_at: '2026-11-28T21:58:00Z' };

describe('the SMS texts of contacts’ replies', () => {
  it('says "reply 1 if you are on your way" in Alerta’s own alert SMS, within two parts, whatever the name and location', () => {
    for (const [language, hint] of [
      ['pt', 'Responda 1 se vai a caminho.'],
      ['en', 'Reply 1 if you are on your way.'],
    ] as const) {
      for (const ownerName of ['Ana', LONG_NAME]) {
        const text = alertMessage({
          language,
          ownerName,
          timeZone: 'Europe/Lisbon',
          mode: 'real',
          location: FAR,
          liveUrl: LINK,
          replyHint: true,
        });
        expect(text, `${language} ${ownerName}`).toContain(hint);
        expect(text.endsWith(LINK)).toBe(true);
        expect(smsParts(text)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('lets the hint give way where not even the start of the name fits beside it: who needs help comes first', () => {
    // A name with no Latin form takes the text to UCS-2, where the hint and the link leave it no room.
    for (const [language, ownerName] of [
      ['pt', '王小明的妈妈'.repeat(4)],
      ['en', 'Мария Александровна'],
    ] as const) {
      const text = alertMessage({ language, ownerName, mode: 'real', location: FAR, liveUrl: LINK, replyHint: true });
      expect(text).toContain(ownerName.slice(0, 3));
      expect(text).not.toMatch(/Reply 1|Responda 1/);
      expect(text.endsWith(LINK)).toBe(true);
      expect(smsParts(text)).toBeLessThanOrEqual(2);
    }
  });

  it('leaves the hint out of the text the owner’s own phone sends (replies there reach the owner, not Alerta)', () => {
    const text = alertMessage({ language: 'en', ownerName: 'Ana', mode: 'real', location: FAR, liveUrl: LINK });
    expect(text).not.toContain('Reply 1');
  });

  it('fits the invitation, with its privacy link whole, in two parts in both languages', () => {
    for (const language of ['pt', 'en'] as const) {
      for (const ownerName of ['Ana', LONG_NAME]) {
        const text = invitationMessage({ language, ownerName, privacyUrl: 'https://alerta.example.org/privacy' });
        expect(text.endsWith('https://alerta.example.org/privacy')).toBe(true);
        expect(text).toMatch(language === 'pt' ? /Responda SIM para confirmar, STOP/ : /Reply YES to confirm, STOP/);
        expect(smsParts(text)).toBeLessThanOrEqual(2);
      }
    }
  });

  it('asks "which alert?" by name, numbered, and keeps the help text to two parts', () => {
    expect(whichMessage('pt', ['Joana', 'Pedro'])).toBe(
      'Alerta: vários alertas abertos. Vai a caminho de quem? Responda 1 para Joana, 2 para Pedro.',
    );
    expect(smsParts(whichMessage('en', [LONG_NAME, LONG_NAME, LONG_NAME]))).toBeLessThanOrEqual(2);
    expect(smsParts(HELP_MESSAGE)).toBeLessThanOrEqual(2);
  });

  it('says in one part, in the question’s language, that the alert a digit chose has ended', () => {
    expect(endedMessage('pt', 1)).toBe('Alerta: o alerta que escolheu (1) já terminou. Nada foi registado.');
    expect(endedMessage('en', 2)).toBe('Alerta: the alert you chose (2) has already ended. Nothing was recorded.');
    for (const language of ['pt', 'en'] as const) expect(smsParts(endedMessage(language, 9))).toBe(1);
  });
});
