import { describe, expect, it } from 'vitest';
import { formatEuro } from '../../src/lib/money';

const formats = new Map<string, Intl.NumberFormat>();
/** `value` as Intl writes it in `locale`: whole euros without cents, any other amount to the cent. */
function intl(value: number, locale: string): string {
  const minimumFractionDigits = Number.isInteger(value) ? 0 : 2;
  const key = `${locale} ${minimumFractionDigits}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR', minimumFractionDigits });
    formats.set(key, format);
  }
  return format.format(value);
}

/** Every cent under 1,000 €, the whole euros, and amounts with more than two decimals. */
const AMOUNTS = [
  ...Array.from({ length: 100_000 }, (_, cents) => cents / 100),
  ...[0.005, 0.015, 1.005, 2.675, 0.125, 7.499, 999.995, 999.999, 0.1 + 0.2],
];

describe('formatEuro', () => {
  it.each([
    ['pt', 'pt-PT'],
    ['en', 'en-IE'],
  ])('writes every amount under 1,000 € in %s as Intl writes it in %s', (language, locale) => {
    const differing = AMOUNTS.filter((value) => formatEuro(value, language) !== intl(value, locale));
    expect(differing).toEqual([]);
  });

  it('writes the prices as Portugal and Ireland do', () => {
    expect([3, 0.08, 7.5].map((value) => formatEuro(value, 'pt'))).toEqual(['3\u00a0€', '0,08\u00a0€', '7,50\u00a0€']);
    expect([3, 0.08, 7.5].map((value) => formatEuro(value, 'en'))).toEqual(['€3', '€0.08', '€7.50']);
  });

  it('leaves larger amounts, and other languages, to Intl', () => {
    for (const value of [1000, 12_345.6, 1_000_000]) {
      expect(formatEuro(value, 'pt')).toBe(intl(value, 'pt-PT'));
      expect(formatEuro(value, 'en')).toBe(intl(value, 'en-IE'));
    }
    expect(formatEuro(3, 'de')).toBe(intl(3, 'de'));
  });
});
