import { describe, expect, it } from 'vitest';
import { smsSegments, transliterate } from './sms-encoding.js';
import { alertMessage, isTestContact, mapsUrl } from './sms-text.js';

const fix = { latitude: 38.7222524, longitude: -9.1393366, accuracy: 14.6, captured_at: '2026-03-01T14:03:27Z' };

describe('alert SMS text', () => {
  it('says in English who needs help, where, how precisely and when', () => {
    const text = alertMessage({ language: 'en', ownerName: 'maria', mode: 'real', location: fix });
    expect(text).toBe(
      'EMERGENCY: maria needs help now. Location: https://maps.google.com/?q=38.72225,-9.13934 (accuracy 15 m, 14:03 UTC)',
    );
    expect(smsSegments(text)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('writes Portuguese, transliterating accents because that keeps it to one segment', () => {
    const text = alertMessage({
      language: 'pt',
      ownerName: 'joão',
      mode: 'real',
      location: { ...fix, captured_at: Date.UTC(2026, 2, 1, 9, 5) },
    });
    expect(text).toBe(
      'EMERGENCIA: joao precisa de ajuda agora. Localizacao: https://maps.google.com/?q=38.72225,-9.13934 (precisao 15 m, 09:05 UTC)',
    );
    expect(smsSegments(text)).toEqual({ encoding: 'GSM-7', segments: 1, length: text.length });
  });

  it('keeps the accents when the text needs the same number of segments either way', () => {
    // 40 characters fit one UCS-2 segment, so transliterating would save nothing.
    const text = alertMessage({ language: 'pt', ownerName: 'José', mode: 'real', locationError: 'not_in_plan' });
    expect(text).toBe('EMERGÊNCIA: José precisa de ajuda agora.');
    expect(smsSegments(text)).toMatchObject({ encoding: 'UCS-2', segments: 1 });
  });

  it('says why the location is unavailable, in both languages', () => {
    expect(alertMessage({ language: 'en', ownerName: 'ana', mode: 'real', locationError: 'denied' })).toBe(
      'EMERGENCY: ana needs help now. Location unavailable (permission denied).',
    );
    expect(alertMessage({ language: 'pt', ownerName: 'ana', mode: 'real', locationError: 'timeout' })).toBe(
      'EMERGENCIA: ana precisa de ajuda agora. Localizacao indisponivel (GPS demorou demasiado).',
    );
    expect(alertMessage({ language: 'en', ownerName: 'ana', mode: 'real', location: null })).toBe(
      'EMERGENCY: ana needs help now. Location unavailable.',
    );
  });

  it('says nothing of location on a plan without GPS', () => {
    const text = alertMessage({ language: 'en', ownerName: 'ana', mode: 'real', locationError: 'not_in_plan' });
    expect(text).toBe('EMERGENCY: ana needs help now.');
    expect(text).not.toMatch(/location/i);
  });

  it('marks a test clearly as a test and never as an emergency', () => {
    const en = alertMessage({ language: 'en', ownerName: 'ana', mode: 'test', location: fix });
    expect(en).toMatch(/^TEST from Alerta: ana is testing alerts\. This is not an emergency\. Location: https:/);
    const pt = alertMessage({ language: 'pt', ownerName: 'ana', mode: 'test', locationError: 'unsupported' });
    expect(pt).toMatch(/^TESTE Alerta: ana esta a testar os alertas\. Nao é uma emergencia\./);
    expect(smsSegments(pt).segments).toBe(1);
  });

  it('appends the live page link when given', () => {
    const text = alertMessage({
      language: 'en',
      ownerName: 'ana',
      mode: 'real',
      locationError: 'not_in_plan',
      liveUrl: 'https://alerta.example/a/abc',
    });
    expect(text).toBe('EMERGENCY: ana needs help now. Follow: https://alerta.example/a/abc');
  });

  it('recognises test contacts by the first word of their name', () => {
    expect(['TEST Ana', 'test ana', 'Teste Rui', '  TEST'].map(isTestContact)).toEqual([true, true, true, true]);
    expect(['Ana TEST', 'Tester', 'Testemunha', ''].map(isTestContact)).toEqual([false, false, false, false]);
  });

  it('rounds the maps link to 5 decimals', () => {
    expect(mapsUrl(-33.8688197, 151.2092955)).toBe('https://maps.google.com/?q=-33.86882,151.20930');
  });
});

describe('SMS segment counting', () => {
  it('counts GSM-7 up to 160 in one part, then 153 per part', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', segments: 0, length: 0 });
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, length: 160 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, length: 161 });
    expect(smsSegments('a'.repeat(306))).toMatchObject({ segments: 2 });
    expect(smsSegments('a'.repeat(307))).toMatchObject({ segments: 3 });
  });

  it('counts extension characters as two septets and never splits them', () => {
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, length: 160 });
    expect(smsSegments(`${'a'.repeat(159)}€`)).toMatchObject({ segments: 2, length: 161 });
    // 152 septets then an escape pair: the pair moves whole to the second part.
    expect(smsSegments(`${'a'.repeat(152)}{${'a'.repeat(152)}`)).toMatchObject({ segments: 3 });
  });

  it('treats GSM accents (é, à, Ç) as GSM-7 and others (ã, ç, emoji) as UCS-2', () => {
    expect(smsSegments('Café à Çà').encoding).toBe('GSM-7');
    expect(smsSegments('não')).toEqual({ encoding: 'UCS-2', segments: 1, length: 3 });
    expect(smsSegments('ç'.repeat(70))).toMatchObject({ segments: 1 });
    expect(smsSegments('ç'.repeat(71))).toMatchObject({ segments: 2 });
    expect(smsSegments('ç'.repeat(135))).toMatchObject({ segments: 3 });
    expect(smsSegments('🚨')).toEqual({ encoding: 'UCS-2', segments: 1, length: 2 });
  });

  it('transliterates only what GSM-7 lacks', () => {
    expect(transliterate('Localização, atenção: é já! “ok” – João')).toBe('Localizacao, atencao: é ja! "ok" - Joao');
    expect(transliterate('Ωμέγα 🚨')).toBe('Ωμέγα 🚨');
  });
});
