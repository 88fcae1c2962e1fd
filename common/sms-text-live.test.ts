import { describe, expect, it } from 'vitest';
import { smsSegments } from './sms-encoding.js';
import { alertMessage, allClearMessage } from './sms-text.js';

const fix = { latitude: 38.7222524, longitude: -9.1393366, accuracy: 14.6, captured_at: '2026-03-01T14:03:27Z' };
const LIVE = 'https://alerta.example.com/a/AbCdEfGhIjKlMnOpQrStUv';

describe('live link in the alert SMS', () => {
  it('fits in one segment beside the maps link when the text is short enough', () => {
    const text = alertMessage({
      language: 'en',
      ownerName: 'ana',
      mode: 'real',
      locationError: 'denied',
      liveUrl: LIVE,
    });
    expect(text).toBe(`EMERGENCY: ana needs help now. Location unavailable (permission denied). Follow: ${LIVE}`);
    expect(smsSegments(text).segments).toBe(1);
  });

  it('stays within two segments with a maps link, the longest username and both languages', () => {
    for (const language of ['pt', 'en'] as const) {
      const text = alertMessage({ language, ownerName: 'a'.repeat(30), mode: 'real', location: fix, liveUrl: LIVE });
      expect(text).toContain('https://maps.google.com/?q=38.72225,-9.13934');
      expect(text).toContain(LIVE);
      expect(smsSegments(text)).toMatchObject({ encoding: 'GSM-7', segments: 2 });
    }
  });

  it('keeps the link and leaves out the maps link rather than growing to a third segment', () => {
    // A name outside GSM-7 forces UCS-2 (67 units a part): the maps link and the live link do
    // not both fit in two parts, and the live page shows the position.
    const text = alertMessage({
      language: 'en',
      ownerName: 'Ωμέγα'.repeat(5),
      mode: 'real',
      location: fix,
      liveUrl: LIVE,
    });
    expect(text).toBe(`EMERGENCY: ${'Ωμέγα'.repeat(5)} needs help now. Follow: ${LIVE}`);
    expect(smsSegments(text)).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    // Without a live link (the emergency page before the server answers) the maps link stays.
    const offline = alertMessage({ language: 'en', ownerName: 'Ωμέγα'.repeat(5), mode: 'real', location: fix });
    expect(offline).toContain('Location: https://maps.google.com/?q=38.72225,-9.13934');
    expect(smsSegments(offline).segments).toBeLessThanOrEqual(2);
  });
});

describe('all-clear SMS', () => {
  it('says the owner is safe in one segment, in both languages', () => {
    expect(allClearMessage({ language: 'en', ownerName: 'ana' })).toBe('Alerta: ana is safe now. The alert is over.');
    // Short enough for one UCS-2 part: the accents stay.
    const pt = allClearMessage({ language: 'pt', ownerName: 'joão' });
    expect(pt).toBe('Alerta: joão está em segurança. O alerta terminou.');
    expect(smsSegments(pt).segments).toBe(1);
    // A long name would need two UCS-2 parts: transliterated to fit one GSM-7 part.
    const long = allClearMessage({ language: 'pt', ownerName: 'j'.repeat(30) });
    expect(long).toBe(`Alerta: ${'j'.repeat(30)} esta em seguranca. O alerta terminou.`);
    expect(smsSegments(long)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });
});
