import { describe, expect, it } from 'vitest';
import { alertMessage } from '../../common/sms-text';
import { smsLink } from './sms';

const phones = ['+351912345678', '+44 7700 900123'];
const text = alertMessage({
  language: 'pt',
  ownerName: 'Ana',
  mode: 'real',
  location: { latitude: 38.7, longitude: -9.1, accuracy: 10, captured_at: '2026-01-01T10:00:00Z' },
});

describe('sms: link for "Send from my phone"', () => {
  it('uses the Android form with every number and the whole text', () => {
    const link = smsLink(phones, text, false);
    expect(link).toBe(`sms:+351912345678,+447700900123?body=${encodeURIComponent(text)}`);
    expect(decodeURIComponent(link.split('?body=')[1] ?? '')).toBe(text);
  });

  it('uses the iOS form that opens a group message', () => {
    const link = smsLink(phones, text, true);
    expect(link.startsWith('sms:/open?addresses=+351912345678,+447700900123&body=')).toBe(true);
    expect(decodeURIComponent(link.split('&body=')[1] ?? '')).toBe(text);
  });

  it('keeps characters that would break the query string inside the body', () => {
    const tricky = 'A & B ? #1 = 100%';
    const link = smsLink(['+351912345678'], tricky, false);
    expect(new URLSearchParams(link.split('?')[1]).get('body')).toBe(tricky);
  });
});
