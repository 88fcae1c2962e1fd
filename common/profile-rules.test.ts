import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, clockIn, normaliseDisplayName, shownName, validateDisplayName } from './profile-rules.js';
import { smsSegments } from './sms-encoding.js';
import { alertMessage, allClearMessage } from './sms-text.js';

describe('display name rules', () => {
  it('accepts names in any script with spaces, apostrophes, hyphens and full stops', () => {
    for (const name of [
      'Maria',
      'Zé Açoriano',
      "Ana-Rita O'Neil",
      'J. R. Silva',
      'Anne d’Arc',
      'Мария',
      '李小龙',
      'Al',
    ]) {
      expect(validateDisplayName(name), name).toBeNull();
    }
  });

  it('treats an empty name as "none" and cleans spacing and invisible characters', () => {
    expect(validateDisplayName('')).toBeNull();
    expect(validateDisplayName('   ')).toBeNull();
    expect(validateDisplayName(null)).toBeNull();
    expect(normaliseDisplayName('  Zé\u200B   Açoriano\n')).toBe('Zé Açoriano');
    expect(normaliseDisplayName('Jose\u0301')).toBe('José');
  });

  it('refuses digits, symbols, one letter, more than 40 characters and anything like a web address', () => {
    for (const name of ['12345', 'Maria 2', 'M', 'M'.repeat(41), 'Ana!', '<b>Ana</b>', "'-.", 'Ana_Rita']) {
      expect(validateDisplayName(name), name).toBe('setup.invalid_display_name');
    }
    expect(validateDisplayName('M'.repeat(40))).toBeNull();
    for (const name of ['www.evil', 'evil.com', 'Maria.Silva', 'bit.ly']) {
      expect(validateDisplayName(name), name).toBe('setup.display_name_link');
    }
    expect(validateDisplayName('https://evil.com')).not.toBeNull();
  });

  it('shows the display name, else the username', () => {
    expect(shownName({ username: 'ux3a32f57c', display_name: 'Maria' })).toBe('Maria');
    expect(shownName({ username: 'ux3a32f57c', display_name: null })).toBe('ux3a32f57c');
    expect(shownName({ username: 'ux3a32f57c', display_name: '  ' })).toBe('ux3a32f57c');
  });
});

describe('time zone rules', () => {
  it('accepts IANA names and returns the engine’s spelling', () => {
    expect(canonicalTimeZone('Europe/Lisbon')).toBe('Europe/Lisbon');
    // Engines differ on which of two linked names is canonical; either is the same zone.
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toMatch(/^America\/(Argentina\/)?Buenos_Aires$/);
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('europe/lisbon')).toBe('Europe/Lisbon');
  });

  it('refuses unknown names, offsets and anything that is not a string', () => {
    for (const value of [
      'Mars/Olympus',
      '+01:00',
      'GMT+1:00',
      '',
      'Europe/',
      '../etc/passwd',
      42,
      null,
      'A'.repeat(65),
    ]) {
      expect(canonicalTimeZone(value), String(value)).toBeNull();
    }
  });

  it('writes clock times in the zone, with summer time, and in UTC without one', () => {
    const winter = Date.UTC(2026, 0, 15, 21, 58);
    const summer = Date.UTC(2026, 6, 15, 21, 58);
    expect(clockIn(winter, 'Europe/Lisbon')).toBe('21:58');
    expect(clockIn(summer, 'Europe/Lisbon')).toBe('22:58');
    expect(clockIn(winter, 'America/Sao_Paulo')).toBe('18:58');
    expect(clockIn(Date.UTC(2026, 0, 15, 0, 5), 'Asia/Kolkata')).toBe('05:35');
    expect(clockIn(Date.UTC(2026, 0, 15, 23, 30), 'Europe/Berlin')).toBe('00:30');
    expect(clockIn(winter, null)).toBe('21:58 UTC');
    expect(clockIn(winter, 'Not/A_Zone')).toBe('21:58 UTC');
    expect(clockIn('not a date', 'Europe/Lisbon')).toBeNull();
  });
});

describe('SMS text with the owner’s name and time zone', () => {
  const fix = { latitude: 38.7222524, longitude: -9.1393366, accuracy: 12, captured_at: '2026-07-01T20:58:00Z' };

  it('names the owner and writes the fix time in their zone', () => {
    expect(
      alertMessage({ language: 'en', ownerName: 'Maria', timeZone: 'Europe/Lisbon', mode: 'real', location: fix }),
    ).toBe(
      'EMERGENCY: Maria needs help now. Location: https://maps.google.com/?q=38.72225,-9.13934 (accuracy 12 m, 21:58)',
    );
    expect(
      alertMessage({ language: 'pt', ownerName: 'Maria', timeZone: 'Europe/Lisbon', mode: 'test', location: fix }),
    ).toMatch(/^TESTE Alerta: Maria esta a testar os alertas\..*\(precisao 12 m, 21:58\)$/);
    expect(alertMessage({ language: 'en', ownerName: 'Maria', mode: 'real', location: fix })).toContain('20:58 UTC');
  });

  it('transliterates the name with the rest when that saves a part', () => {
    const text = alertMessage({
      language: 'pt',
      ownerName: 'Conceição Gonçalves',
      timeZone: 'Europe/Lisbon',
      mode: 'real',
      location: fix,
      liveUrl: 'https://alerta.example/a/ZtJ1qMCe4JTAVQ0ufvdhaw',
    });
    expect(text).toMatch(/^EMERGENCIA: Conceicao Goncalves precisa de ajuda agora\. .*Acompanhe: https/);
    expect(smsSegments(text)).toMatchObject({ encoding: 'GSM-7', segments: 2 });
    expect(allClearMessage({ language: 'en', ownerName: 'Conceição Gonçalves' })).toBe(
      'Alerta: Conceição Gonçalves is safe now. The alert is over.',
    );
  });

  it('keeps any valid Latin-script name of up to 40 characters, with the live link, to two GSM-7 parts', () => {
    const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzãâáàçéêíóôõúüñÁÉÍÓÚÇ'.split(''), ' ', "'", '’', '-');
    const name = fc
      .array(letter, { minLength: 2, maxLength: 40 })
      .map((chars) => chars.join(''))
      .filter((n) => validateDisplayName(n) === null && normaliseDisplayName(n) !== '');
    fc.assert(
      fc.property(name, fc.constantFrom('pt' as const, 'en' as const), (ownerName, language) => {
        const text = alertMessage({
          language,
          ownerName: normaliseDisplayName(ownerName),
          timeZone: 'America/Argentina/Buenos_Aires',
          mode: 'real',
          location: { latitude: -38.7222524, longitude: -179.1393366, accuracy: 1234, captured_at: fix.captured_at },
          liveUrl: 'https://alerta.example.com/a/ZtJ1qMCe4JTAVQ0ufvdhaw',
        });
        const segments = smsSegments(text);
        expect(text).toContain('/a/ZtJ1qMCe4JTAVQ0ufvdhaw');
        expect(segments.encoding).toBe('GSM-7');
        expect(segments.segments).toBeLessThanOrEqual(2);
      }),
    );
  });
});
