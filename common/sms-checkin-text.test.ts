import { describe, expect, it } from 'vitest';
import { checkinMessage } from './sms-checkin-text.js';
import { smsParts } from './sms-encoding.js';

const LIVE = 'https://alerta.example.com/a/ZtJ1qMCe4JTAVQ0ufvdhaw?c=Qm9vbGVhbkZsYWc';
// 21:30 in Lisbon (winter: UTC), the position taken 12 minutes before the SMS.
const DUE = Date.UTC(2026, 0, 15, 21, 30);
const NOW = DUE + 5 * 60_000;
const FIX = { latitude: 38.7223, longitude: -9.1393, accuracy: 18.4, captured_at: NOW - 12 * 60_000 };
const base = { ownerName: 'Ana Sousa', timeZone: 'Europe/Lisbon', dueAt: DUE, now: NOW, liveUrl: LIVE } as const;

describe('check-in alert SMS', () => {
  it('of a check-in started with the link alone: says so, and gives the note as whoever started it wrote it', () => {
    const input = { ...base, reason: 'missed_checkin', note: 'Gone fishing', location: FIX, linkOnly: true } as const;
    expect(checkinMessage({ ...input, language: 'en' })).toBe(
      'ALERT: a check-in started with the link of Ana Sousa was not ended at 21:30. Note from whoever started it: "Gone fishing". ' +
        `Last location: https://maps.google.com/?q=38.72230,-9.13930 (accuracy 18 m, 12 min ago) Follow: ${LIVE}`,
    );
    const pt = checkinMessage({ ...input, language: 'pt' });
    expect(pt).toMatch(/^ALERTA: um check-in iniciado com a liga(ç|c)ao de Ana Sousa nao foi terminado às 21:30\. /);
    expect(pt).toContain('Nota de quem o iniciou: "Gone fishing".');
    expect(pt).not.toContain('como tinha combinado');
  });

  it('says the owner did not check in at the due time, the note and the last position with accuracy and age', () => {
    expect(
      checkinMessage({
        ...base,
        language: 'en',
        reason: 'missed_checkin',
        note: 'Walking home from Bairro Alto',
        location: FIX,
      }),
    ).toBe(
      'ALERT: Ana Sousa did not check in as planned at 21:30. Note: "Walking home from Bairro Alto". ' +
        `Last location: https://maps.google.com/?q=38.72230,-9.13930 (accuracy 18 m, 12 min ago) Follow: ${LIVE}`,
    );
    expect(
      checkinMessage({
        ...base,
        language: 'pt',
        reason: 'missed_checkin',
        note: 'A voltar do Bairro Alto',
        location: FIX,
      }),
    ).toBe(
      // Transliterated: two SMS parts in GSM-7 instead of four in UCS-2.
      'ALERTA: Ana Sousa nao confirmou que estava bem às 21:30, como tinha combinado. Nota: "A voltar do Bairro Alto". ' +
        `Ultima localizacao: https://maps.google.com/?q=38.72230,-9.13930 (precisao 18 m, ha 12 min) Acompanhe: ${LIVE}`,
    );
  });

  it('names the due time in the owner time zone, and in UTC without one', () => {
    const summer = Date.UTC(2026, 6, 15, 21, 30);
    const text = (timeZone: string | null) =>
      checkinMessage({ ...base, dueAt: summer, now: summer, timeZone, language: 'en', reason: 'missed_checkin' });
    expect(text('Europe/Lisbon')).toContain('at 22:30.');
    expect(text('America/Sao_Paulo')).toContain('at 18:30.');
    expect(text(null)).toContain('at 21:30 UTC.');
  });

  it('says when no position is known', () => {
    expect(checkinMessage({ ...base, language: 'en', reason: 'missed_checkin' })).toBe(
      `ALERT: Ana Sousa did not check in as planned at 21:30. Location unavailable. Follow: ${LIVE}`,
    );
    expect(checkinMessage({ ...base, language: 'pt', reason: 'missed_checkin', location: null })).toContain(
      'Localizacao indisponivel.',
    );
  });

  it('tells the contacts of a duress PIN not to call back openly', () => {
    expect(checkinMessage({ ...base, language: 'en', reason: 'duress', location: FIX })).toBe(
      'EMERGENCY: Ana Sousa may be acting under duress. Do not call or reply to them openly; contact the authorities. ' +
        `Last location: https://maps.google.com/?q=38.72230,-9.13930 (accuracy 18 m, 12 min ago) Follow: ${LIVE}`,
    );
    expect(checkinMessage({ ...base, language: 'pt', reason: 'duress' })).toContain(
      'pode estar a agir sob coacao. Nao lhe ligue nem responda abertamente; peca ajuda às autoridades.',
    );
  });

  it('counts the age in hours past an hour, and says just now for a fresh fix', () => {
    const old = { ...FIX, captured_at: NOW - 3 * 3600_000 };
    expect(checkinMessage({ ...base, language: 'en', reason: 'missed_checkin', location: old })).toContain('3 h ago');
    expect(
      checkinMessage({ ...base, language: 'pt', reason: 'missed_checkin', location: { ...FIX, captured_at: NOW } }),
    ).toContain('agora mesmo');
  });

  it('keeps within two SMS parts with a long note and name: the note gives way, the live link stays whole', () => {
    const note =
      'Encontro às cegas 🌙 no café ao pé do rio, depois táxi para casa — se não disser nada liguem à polícia';
    for (const language of ['pt', 'en'] as const) {
      for (const reason of ['missed_checkin', 'duress'] as const) {
        const text = checkinMessage({
          ...base,
          ownerName: 'Maria da Conceição Albuquerque 🌸',
          language,
          reason,
          note,
          location: FIX,
        });
        expect(smsParts(text)).toBeLessThanOrEqual(2);
        expect(text.endsWith(LIVE)).toBe(true);
        expect(text).toContain('maps.google.com');
      }
    }
  });
});
