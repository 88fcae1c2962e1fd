import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { smsParts } from './sms-encoding.js';
import { fitSms, SMS_MAX_PARTS, type SmsLayout } from './sms-fit.js';

const HEADLINE = ['EMERGENCY: ', ' needs help.'] as const;
const DETAILS = [' Last known position: https://maps.google.com/?q=38.72225,-9.13934 (12 m, 14:05).', ''];
const layout = (ownerName: string, url: string): SmsLayout => ({
  ownerName,
  headline: HEADLINE,
  details: DETAILS,
  link: { label: ' Live: ', url },
});
const textBeforeLink = (text: string, url: string) => {
  expect(text.endsWith(url)).toBe(true);
  return text.slice(0, text.length - url.length);
};

// An alert's texts, one per contact, differ only in their links: fitSms lays them out once.
describe('an SMS with a link', () => {
  it('is laid out alike before any link of one length in the basic table, each ending with its own', () => {
    const basic = fc.constantFrom(...'ABCXYZabcxyz0189-_');
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 120 }),
        fc.array(basic, { minLength: 1, maxLength: 60 }),
        fc.array(basic, { minLength: 1, maxLength: 60 }),
        (name, one, other) => {
          const length = Math.min(one.length, other.length);
          const [a, b] = [one, other].map((chars) => `https://alerta.test/a/${chars.slice(0, length).join('')}`) as [
            string,
            string,
          ];
          const [textA, textB] = [fitSms(layout(name, a)), fitSms(layout(name, b))];
          expect(textBeforeLink(textA, a)).toBe(textBeforeLink(textB, b));
          expect(smsParts(textA)).toBeLessThanOrEqual(SMS_MAX_PARTS);
        },
      ),
    );
  });

  it('is laid out on its own for a link with a character outside the basic table', () => {
    // Names that fill the text to its last septets: a "~" or "€" in the link (two septets each)
    // or a "ç" (outside GSM-7: the whole text in UCS-2) leaves less room than "_" does.
    const url = (c: string) => `https://alerta.test/a/abc${c}def`;
    let differed = 0;
    for (let n = 1; n <= 320; n += 1) {
      const name = 'Ana'.repeat(n);
      const basic = fitSms(layout(name, url('_')));
      for (const c of ['~', '€', 'ç']) {
        const text = fitSms(layout(name, url(c)));
        expect(smsParts(text)).toBeLessThanOrEqual(SMS_MAX_PARTS);
        if (textBeforeLink(text, url(c)) !== textBeforeLink(basic, url('_'))) differed += 1;
      }
    }
    expect(differed).toBeGreaterThan(0);
  });
});
