import { describe, expect, it } from 'vitest';
import en from '../../src/i18n/locales/en';
import pt from '../../src/i18n/locales/pt';

/** Every leaf key of a nested message object, dotted. */
function keys(messages: object, prefix = ''): string[] {
  return Object.entries(messages).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keys(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

function leaves(messages: object): string[] {
  return Object.values(messages).flatMap((value) =>
    typeof value === 'object' && value !== null ? leaves(value) : [value],
  );
}

describe('translations', () => {
  it('has every key in both Portuguese and English', () => {
    expect(keys(en).sort()).toEqual(keys(pt).sort());
  });

  it('has no empty text in either language', () => {
    for (const text of [...leaves(pt), ...leaves(en)]) expect(String(text).trim()).not.toBe('');
  });
});
