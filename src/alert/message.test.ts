import { describe, expect, it } from 'vitest';
import { smsParts } from '../../common/sms-encoding';
import type { PageData } from './api';
import { smsLink } from './sms';
import { messageText } from './sms-message';

const page: PageData = {
  owner_name: 'Zé Açoriano',
  time_zone: 'America/New_York',
  language: 'en',
  gps_enabled: true,
  countdown_seconds: 5,
  contacts: [{ name: 'Ana', phone_number: '+351912345678' }],
  messages: { real: '', test: '' },
};
const fix = { latitude: 38.72225, longitude: -9.13934, accuracy: 12, captured_at: '2026-03-01T14:03:00Z' };

describe('the emergency page’s own SMS text', () => {
  it('names the owner by their display name and writes the time in their zone, as the server does', () => {
    expect(messageText(page, 'real', fix, null, 'https://alerta.example/a/abc')).toBe(
      'EMERGENCY: Zé Acoriano needs help now. Location: https://maps.google.com/?q=38.72225,-9.13934 (accuracy 12 m, 09:03) Follow: https://alerta.example/a/abc',
    );
  });

  it('writes UTC when a copy cached before time zones existed has none', () => {
    const { time_zone: _, ...old } = page;
    expect(messageText(old, 'real', fix, null)).toContain('(accuracy 12 m, 14:03 UTC)');
  });

  it('keeps the live link and two parts for "Send from my phone" whatever the name, as the server does', () => {
    const live = 'https://alerta.example.com/a/ZtJ1qMCe4JTAVQ0ufvdhaw';
    for (const owner_name of ['Мария Ивановна Петрова', '𝐌𝐚𝐫𝐢𝐚 𝐝𝐚 𝐂𝐨𝐧𝐜𝐞𝐢𝐜𝐚𝐨 𝐒𝐢𝐥𝐯𝐚', '😀'.repeat(40)]) {
      for (const language of ['pt', 'en'] as const) {
        const text = messageText({ ...page, owner_name, language }, 'real', fix, null, live);
        expect(text).toContain(live);
        expect(smsParts(text)).toBeLessThanOrEqual(2);
        expect(decodeURIComponent(smsLink(['+351912345678'], text, false).split('?body=')[1] ?? '')).toBe(text);
      }
    }
  });
});
