import { describe, expect, it } from 'vitest';
import { dailyMessage } from './sms-text-daily.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
// Tuesday 24 November 2026, 09:41 in Lisbon (UTC+0 in winter).
const SINCE = Date.parse('2026-11-24T09:41:00Z');
const FIX = { latitude: 38.7223, longitude: -9.1393, accuracy: 20, captured_at: NOW - 3 * 3600_000 };
const base = {
  ownerName: 'Ana',
  timeZone: 'Europe/Lisbon',
  since: SINCE,
  now: NOW,
  liveUrl: 'https://alerta.test/a/x?c=k',
};

describe('the missed daily check-in’s SMS', () => {
  it('names who, since when there has been no sign of life on the owner’s clock, the position’s age and the live link', () => {
    const en = dailyMessage({ ...base, language: 'en', location: FIX });
    expect(en).toContain('Ana missed their daily check-in: no check-in since Tuesday 09:41.');
    expect(en).toContain('maps.google.com');
    expect(en).toContain('(3 h ago)');
    expect(en).toContain('https://alerta.test/a/x?c=k');
    const pt = dailyMessage({ ...base, language: 'pt', location: null });
    // Written in GSM-7 (one SMS part holds more): accents the alphabet lacks give way.
    expect(pt).toContain('Ana nao fez o check-in diario. Nenhum sinal desde terca-feira às 09:41.');
    expect(pt).toContain('Localizacao desconhecida.');
    expect(pt).toContain('https://alerta.test/a/x?c=k');
  });

  it('counts a position days old in days, and reads the time in the owner’s zone', () => {
    const old = { ...FIX, captured_at: NOW - 3 * 86_400_000 };
    expect(dailyMessage({ ...base, language: 'en', location: old })).toContain('(3 days ago)');
    expect(dailyMessage({ ...base, language: 'en', timeZone: 'Asia/Tokyo' })).toContain('since Tuesday 18:41.');
  });

  it('adds the date to the weekday when the last sign of life is more than six days old', () => {
    const weekAgo = { ...base, now: SINCE + 7 * 86_400_000 };
    expect(dailyMessage({ ...weekAgo, language: 'en' })).toContain('no check-in since Tuesday 24 November 09:41.');
    expect(dailyMessage({ ...weekAgo, language: 'pt' })).toContain('desde terca-feira, 24 de novembro às 09:41.');
    const sixDays = { ...base, now: SINCE + 6 * 86_400_000 };
    expect(dailyMessage({ ...sixDays, language: 'en' })).toContain('no check-in since Tuesday 09:41.');
  });
});
