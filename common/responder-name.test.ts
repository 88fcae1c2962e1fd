import { describe, expect, it } from 'vitest';
import {
  CLUSTER_MAX_CODE_POINTS,
  checkResponderName,
  cleanResponderName,
  graphemes,
  RESPONDER_NAME_INPUT_MAX,
  RESPONDER_NAME_MAX,
} from './responder-name.js';

const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
const FAMILY_TONED = '\u{1F468}\u{1F3FB}\u200D\u{1F469}\u{1F3FB}\u200D\u{1F467}\u{1F3FB}\u200D\u{1F466}\u{1F3FB}';
const ENGLAND = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
const marks = (n: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x300 + (i % 0x30))).join('');

describe('cleanResponderName', () => {
  it('keeps names people write, in any script, NFC', () => {
    for (const name of [
      'Rui',
      'Maria João',
      'José Conceição',
      'Zoë O’Brien-Smith',
      'Nguyễn Thị Ánh',
      'محمد',
      'مهسا\u200Cپور',
      'אִמָּא',
      'स्त्री',
      'Ана',
      '王小明',
      `Mãe ${FAMILY}`,
      FAMILY_TONED,
      `Ana ${ENGLAND}`,
      'Ana ❤️',
      '1️⃣',
    ]) {
      expect(cleanResponderName(name), name).toBe(name.normalize('NFC'));
    }
    // Decomposed accents come back composed.
    expect(cleanResponderName('Jose\u0301')).toBe('José');
  });

  it('drops direction controls, zero-width and other invisible characters', () => {
    expect(cleanResponderName('\u202EnaM\u202C')).toBe('naM');
    expect(cleanResponderName('\u2066Ana\u2069 \u200ERui\u200F\u061C')).toBe('Ana Rui');
    expect(cleanResponderName(`A${'\u200B'.repeat(200)}na`)).toBe('Ana');
    expect(cleanResponderName('\uFEFFAna\u00AD\u2060\u180E')).toBe('Ana');
    // A joiner is kept between emoji and inside words, never on its own.
    expect(cleanResponderName('\u200DAna\u200D \u200D')).toBe('Ana');
    expect(cleanResponderName('\u{E000}Ana\u{F0000}')).toBe('Ana');
    // Lone tag characters spell invisible text.
    expect(cleanResponderName('Ana\u{E0041}\u{E0042}')).toBe('Ana');
  });

  it('reads controls, line breaks and odd spaces as one space', () => {
    expect(cleanResponderName('  Rui\u0007 ')).toBe('Rui');
    expect(cleanResponderName('Ana\n\u2028\u3000\u00A0Rui')).toBe('Ana Rui');
    expect(cleanResponderName('\u3164\u2800')).toBe('');
  });

  it('keeps at most three combining marks after a character and none without one', () => {
    // Zalgo text: dozens of marks stacked on each letter.
    const zalgo = cleanResponderName(`Z${marks(40)}a${marks(40)}`);
    expect(zalgo.normalize('NFD').replace(/\p{M}/gu, '')).toBe('Za');
    expect(zalgo.match(/\p{M}/gu)).toHaveLength(6);
    expect(cleanResponderName('Ana\u0301\u0302\u0303\u0304')).toBe('Ana\u0301\u0302\u0303'.normalize('NFC'));
    expect(cleanResponderName(`${marks(5)}Ana`)).toBe('Ana');
    expect(cleanResponderName(`Ana ${marks(5)}`)).toBe('Ana');
  });
});

describe('checkResponderName', () => {
  it('accepts no name, and names of 1 to 40 visible characters', () => {
    expect(checkResponderName(undefined)).toEqual({ ok: true, name: '' });
    expect(checkResponderName(null)).toEqual({ ok: true, name: '' });
    expect(checkResponderName('   ')).toEqual({ ok: true, name: '' });
    expect(checkResponderName('x'.repeat(RESPONDER_NAME_MAX))).toEqual({ ok: true, name: 'x'.repeat(40) });
    // 40 family emoji are 40 visible characters, though 440 code units.
    expect(checkResponderName(FAMILY.repeat(40))).toEqual({ ok: true, name: FAMILY.repeat(40) });
    expect(checkResponderName(' \u202EAna ')).toEqual({ ok: true, name: 'Ana' });
  });

  it('refuses 41 visible characters, nothing visible, and characters of too many parts', () => {
    expect(checkResponderName('x'.repeat(41))).toEqual({ ok: false, problem: 'too_long' });
    expect(checkResponderName('é'.repeat(41))).toEqual({ ok: false, problem: 'too_long' });
    expect(checkResponderName('x'.repeat(RESPONDER_NAME_INPUT_MAX + 1))).toEqual({ ok: false, problem: 'too_long' });
    expect(checkResponderName('\u200B'.repeat(200))).toEqual({ ok: false, problem: 'no_visible' });
    expect(checkResponderName('\u202E\u2066')).toEqual({ ok: false, problem: 'no_visible' });
    const chain = Array.from({ length: CLUSTER_MAX_CODE_POINTS }, () => '\u{1F468}').join('\u200D');
    expect(checkResponderName(chain)).toEqual({ ok: false, problem: 'too_complex' });
  });

  it('counts grapheme clusters', () => {
    expect(graphemes(`a${FAMILY}é\u0301`)).toHaveLength(3);
  });
});
