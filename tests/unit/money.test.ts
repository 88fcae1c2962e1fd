import { describe, expect, it } from 'vitest';
import { formatEuro } from '../../src/lib/money';

describe('formatEuro', () => {
  it('writes the prices as Portugal and Ireland do: whole euros without cents, other amounts to the cent', () => {
    expect([3, 0.08, 7.5, 0.1, 1234.5].map((value) => formatEuro(value, 'pt'))).toEqual([
      '3\u00a0€',
      '0,08\u00a0€',
      '7,50\u00a0€',
      '0,10\u00a0€',
      '1234,50\u00a0€',
    ]);
    expect([3, 0.08, 7.5, 0.1, 1234.5].map((value) => formatEuro(value, 'en'))).toEqual([
      '€3',
      '€0.08',
      '€7.50',
      '€0.10',
      '€1,234.50',
    ]);
  });

  it('rounds to the cent, and writes another language as Intl does', () => {
    expect(formatEuro(2.675, 'en')).toMatch(/^€2\.6[78]$/);
    expect(formatEuro(0.999, 'pt')).toBe('1\u00a0€');
    expect(formatEuro(3, 'de')).toBe('3\u00a0€');
  });
});
