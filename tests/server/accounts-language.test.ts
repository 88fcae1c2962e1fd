import { describe, expect, it } from 'vitest';
import { languageFromHeader } from '../../server/features/accounts/language.js';

describe('accounts: e-mail language from Accept-Language', () => {
  it('picks the best supported language by quality, then order', () => {
    expect(languageFromHeader('en-US,en;q=0.9')).toBe('en');
    expect(languageFromHeader('pt-PT')).toBe('pt');
    expect(languageFromHeader('fr-FR,fr;q=0.9,en;q=0.8,pt;q=0.7')).toBe('en');
    expect(languageFromHeader('pt;q=0.5, en;q=0.6')).toBe('en');
    expect(languageFromHeader('EN, pt')).toBe('en');
  });

  it('ignores unsupported, refused and malformed entries', () => {
    expect(languageFromHeader(undefined)).toBeNull();
    expect(languageFromHeader('')).toBeNull();
    expect(languageFromHeader('de, fr')).toBeNull();
    expect(languageFromHeader('en;q=0, pt;q=0.1')).toBe('pt');
    expect(languageFromHeader('en;q=abc')).toBeNull();
    expect(languageFromHeader(';;;,,,')).toBeNull();
  });
});
