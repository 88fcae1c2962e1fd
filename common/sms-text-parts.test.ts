import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { DISPLAY_NAME_MAX } from './profile-rules.js';
import { smsParts, smsSegments, transliterate } from './sms-encoding.js';
import {
  type AlertLanguage,
  type AlertLocation,
  type AlertMessageInput,
  alertMessage,
  allClearMessage,
  type LocationError,
  smsName,
} from './sms-text.js';

const LIVE = 'https://alerta.example.com/a/ZtJ1qMCe4JTAVQ0ufvdhaw';
// A long but plausible operator address: APP_URL of 45 characters.
const LONG_LIVE = 'https://alertas.associacao-de-exemplo.org.pt/a/ZtJ1qMCe4JTAVQ0ufvdhaw';
const fix: AlertLocation = {
  latitude: -38.7222524,
  longitude: -179.1393366,
  accuracy: 1234,
  captured_at: '2026-07-01T20:58:00Z',
};
/** Mathematical bold letters: each one is a surrogate pair. */
const mathBold = (text: string) =>
  text.replace(/[A-Za-z]/g, (c) =>
    String.fromCodePoint(c <= 'Z' ? 0x1d400 + c.charCodeAt(0) - 65 : 0x1d41a + c.charCodeAt(0) - 97),
  );
const MATH_BOLD = mathBold('Maria da Conceicao Silva Ferreira Castro'); // 40 characters, 74 code units
const CYRILLIC = 'Мария Ивановна Петрова';

const LOCATIONS: Pick<AlertMessageInput, 'location' | 'locationError'>[] = [
  { location: fix },
  { location: null },
  { locationError: 'denied' },
  { locationError: 'unavailable' },
  { locationError: 'timeout' },
  { locationError: 'unsupported' },
  { locationError: 'not_in_plan' },
];

/** Code points of one script or kind, as a name's characters. */
const range = (from: number, to: number) => fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
const nameChar = fc.oneof(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', ' ', ' ', "'", '’', '-', '.'),
  fc.constantFrom(...'ãâáàçéêíóôõúüñÁÉÍÓÚÇŁłđŒœ'),
  range(0x1d400, 0x1d467), // mathematical bold and italic letters (astral)
  range(0xff21, 0xff5a), // fullwidth Latin
  range(0x0410, 0x044f), // Cyrillic
  range(0x0621, 0x064a), // Arabic (right to left)
  range(0x05d0, 0x05ea), // Hebrew (right to left)
  range(0x4e00, 0x9fff), // CJK
  range(0x20000, 0x2a6df), // CJK extension B (astral)
  range(0x0300, 0x036f), // combining marks
  range(0x1f600, 0x1f64f), // emoji
  fc.constantFrom('\u200d', '\u202e', '\u2066', '\u200f', '\n', '\u0000', '\ud800', '\udc00', '🏽', '👩‍👩‍👧‍👦'),
);
/** Names up to the profile's maximum length, in any mix of scripts and kinds of character. */
const anyName = fc.oneof(
  fc.array(nameChar, { minLength: 0, maxLength: DISPLAY_NAME_MAX }).map((chars) => chars.join('')),
  fc.string({ unit: 'grapheme', maxLength: DISPLAY_NAME_MAX }),
  fc.string({ unit: 'binary', maxLength: DISPLAY_NAME_MAX }),
  // A combining flood on every letter.
  fc
    .array(fc.tuple(nameChar, fc.array(range(0x0300, 0x036f), { maxLength: 12 })), { maxLength: 8 })
    .map((xs) => xs.map(([c, marks]) => c + marks.join('')).join('')),
);
const language = fc.constantFrom<AlertLanguage>('pt', 'en');
const where = fc.constantFrom(...LOCATIONS);
const timeZone = fc.constantFrom('America/Argentina/Buenos_Aires', 'Europe/Lisbon', null);
// The longest link any name must fit beside: 80 characters, with a per-contact part.
const LONGEST_LIVE = 'https://alertas.associacao-exemplo.org.pt/a/ZtJ1qMCe4JTAVQ0ufvdhaw?c=NlFzezKcLGw';
const liveUrl = fc.constantFrom(LIVE, LONG_LIVE, LONGEST_LIVE, 'http://alerta.test/a/AAAAAAAAAAAAAAAAAAAAAA');

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const graphemes = (text: string) =>
  Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (s) => s.segment);

/** The name as the headline shows it, between its fixed words. */
function shownName(text: string, lang: AlertLanguage): string {
  const [start, end] =
    lang === 'pt' ? ['EMERGÊNCIA: ', ' precisa de ajuda agora.'] : ['EMERGENCY: ', ' needs help now.'];
  const [plainStart, plainEnd] = [transliterate(start), transliterate(end)];
  const from = text.startsWith(start) ? start.length : plainStart.length;
  const stop = text.indexOf(text.startsWith(start) ? end : plainEnd, from);
  return text.slice(from, stop);
}

/** Whether `shown` is the name cut between graphemes (then with "…" in a UCS-2 text), as is or in Latin letters. */
function isCutOf(shown: string, name: string): boolean {
  const bare = shown.endsWith('…') ? shown.slice(0, -1) : shown;
  // "?" stands for a name with nothing visible, or whose first grapheme is a cluster of several
  // characters too long to fit (one character always fits).
  // A name that is itself a question mark in another form ("︖", "？") is shown as one too: the
  // comparison below.
  const unseen = transliterate(smsName(name)).trim() === '' || (graphemes(smsName(name))[0] ?? '').length > 2;
  if (bare === '?' && unseen) return true;
  return [smsName(name), transliterate(smsName(name))].some((form) => {
    const all = graphemes(form);
    const kept = graphemes(bare);
    return kept.length > 0 && kept.every((g, i) => g === all[i]);
  });
}

describe('SMS part counter', () => {
  it('agrees with hand-computed counts', () => {
    const examples: [string, number][] = [
      ['', 0],
      ['a'.repeat(160), 1], // GSM-7: 160 septets in one part
      ['a'.repeat(161), 2], // then 153 a part
      ['a'.repeat(306), 2],
      ['a'.repeat(307), 3],
      ['€'.repeat(80), 1], // '€' is an extension character: 2 septets
      [`${'a'.repeat(159)}€`, 2],
      [`${'a'.repeat(152)}[${'a'.repeat(152)}`, 3], // the escape pair is not split across parts
      ['ж'.repeat(70), 1], // UCS-2: 70 code units in one part
      ['ж'.repeat(71), 2], // then 67 a part
      ['ж'.repeat(134), 2],
      ['ж'.repeat(135), 3],
      [`${'a'.repeat(159)}ç`, 3], // one ç makes the whole text UCS-2: 160 units
      ['😀'.repeat(35), 1], // astral: 2 code units each
      ['😀'.repeat(36), 2],
      ['𝐌'.repeat(40), 2],
      [`${'a'.repeat(66)}😀${'a'.repeat(66)}`, 3], // the surrogate pair is not split across parts
      ['é à Ç Ä ß Ω', 1],
      ['EMERGÊNCIA', 1],
    ];
    for (const [text, parts] of examples) expect(smsParts(text), text).toBe(parts);
    expect(smsSegments('€'.repeat(80)).length).toBe(160);
    expect(smsSegments('😀'.repeat(35))).toMatchObject({ encoding: 'UCS-2', length: 70 });
  });

  it('agrees with a plain reference count wherever no pair can straddle two parts', () => {
    const gsm = fc.constantFrom(...'@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà');
    const bmp = fc.oneof(gsm, range(0x0400, 0x04ff), range(0x4e00, 0x9fff), fc.constantFrom('ç', 'ã', '…'));
    const reference = (text: string, gsm7: boolean) => {
      const n = text.length; // one septet or one UTF-16 unit per character here
      if (n === 0) return 0;
      const [single, multi] = gsm7 ? [160, 153] : [70, 67];
      return n <= single ? 1 : Math.ceil(n / multi);
    };
    fc.assert(
      fc.property(fc.array(gsm, { maxLength: 500 }), (chars) => {
        const text = chars.join('');
        expect(smsParts(text)).toBe(reference(text, true));
      }),
    );
    fc.assert(
      fc.property(fc.array(bmp, { maxLength: 300 }), (chars) => {
        const text = chars.join('');
        expect(smsParts(text)).toBe(
          reference(
            text,
            Array.from(text).every((c) => smsSegments(c).encoding === 'GSM-7'),
          ),
        );
      }),
    );
  });

  it('never counts fewer parts than the characters need', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const { encoding, length } = smsSegments(text);
        const [single, multi] = encoding === 'GSM-7' ? [160, 153] : [70, 67];
        const floor = length === 0 ? 0 : length <= single ? 1 : Math.ceil(length / multi);
        expect(smsParts(text)).toBeGreaterThanOrEqual(floor);
      }),
    );
  });
});

describe('the owner name as the SMS carry it', () => {
  it('leaves no space at either end or doubled where a mark without a letter went', () => {
    // A combining mark at the start, then a control character: the mark went, the space stayed.
    expect(smsName('\u0300\u0000\u{20000}\u0344\u0300\u0300')).toBe('\u{20000}\u0344\u0300\u0300'.normalize('NFC'));
    expect(smsName('Ana \u0300 Maria')).toBe('Ana Maria');
    expect(smsName('Ana\u0000\u0301')).toBe('Ana');
    expect(smsName('\u0301\u0302')).toBe('');
  });

  it('never starts or ends with a space, nor has two in a row', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const clean = smsName(name);
        expect(clean).toBe(clean.trim());
        expect(clean).not.toMatch(/\s\s/u);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('alert SMS with any owner name', () => {
  it('always carries the exact live link within two parts, in both languages and every location case', () => {
    fc.assert(
      fc.property(anyName, language, where, timeZone, liveUrl, (ownerName, lang, place, zone, url) => {
        const text = alertMessage({ language: lang, ownerName, timeZone: zone, mode: 'real', ...place, liveUrl: url });
        expect(text.endsWith(` ${url}`)).toBe(true);
        expect(text.split(url).length).toBe(2);
        expect(smsParts(text)).toBeLessThanOrEqual(2);
        expect(text).not.toMatch(LONE_SURROGATE);
        expect(isCutOf(shownName(text, lang), ownerName)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps test alerts, alerts without a link and all-clears within two parts', () => {
    fc.assert(
      fc.property(anyName, language, where, timeZone, (ownerName, lang, place, zone) => {
        for (const mode of ['real', 'test'] as const) {
          const text = alertMessage({ language: lang, ownerName, timeZone: zone, mode, ...place });
          expect(smsParts(text)).toBeLessThanOrEqual(2);
          expect(text).not.toMatch(LONE_SURROGATE);
        }
        const clear = allClearMessage({ language: lang, ownerName });
        expect(smsParts(clear)).toBeLessThanOrEqual(2);
        expect(clear).not.toMatch(LONE_SURROGATE);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the live link for a name in a non-Latin script, whole, in UCS-2', () => {
    for (const lang of ['pt', 'en'] as const) {
      for (const place of LOCATIONS) {
        const text = alertMessage({ language: lang, ownerName: CYRILLIC, mode: 'real', ...place, liveUrl: LIVE });
        expect(text).toContain(LIVE);
        expect(text).toContain(CYRILLIC);
        expect(smsSegments(text).encoding).toBe('UCS-2');
        expect(smsParts(text)).toBeLessThanOrEqual(2);
      }
    }
    // The position is on the live page; the maps link stays whenever there is room for it.
    const test = alertMessage({ language: 'en', ownerName: 'Иван', mode: 'test', location: fix });
    expect(test).toContain('https://maps.google.com/?q=-38.72225,-179.13934');
  });

  it('writes a math-bold, fullwidth or accented name in Latin letters rather than losing anything', () => {
    for (const lang of ['pt', 'en'] as const) {
      const text = alertMessage({ language: lang, ownerName: MATH_BOLD, mode: 'real', location: fix, liveUrl: LIVE });
      expect(text).toContain('Maria da Conceicao Silva Ferreira Castro');
      expect(text).toContain('https://maps.google.com/?q=-38.72225,-179.13934');
      expect(text).toContain(LIVE);
      expect(smsSegments(text)).toMatchObject({ encoding: 'GSM-7', segments: 2 });
      expect(allClearMessage({ language: lang, ownerName: MATH_BOLD })).toContain('Maria da Conceicao Silva');
    }
    const wide = alertMessage({
      language: 'en',
      ownerName: 'Ｍａｒｉａ　Ｓｉｌｖａ',
      mode: 'real',
      location: fix,
      liveUrl: LIVE,
    });
    expect(wide).toMatch(/^EMERGENCY: Maria Silva needs help now\./);
    const polish = alertMessage({
      language: 'en',
      ownerName: 'Łucja Żółkiewska-Wróblewska Świętosława',
      mode: 'real',
      location: fix,
      liveUrl: LIVE,
    });
    expect(polish).toMatch(/^EMERGENCY: Lucja Zolkiewska-Wroblewska Swietoslawa needs help now\./);
    expect(smsSegments(polish)).toMatchObject({ encoding: 'GSM-7', segments: 2 });
  });

  it('shortens a name that would take the text past two parts: "…" in UCS-2, a clean cut in GSM-7', () => {
    const long = alertMessage({
      language: 'pt',
      ownerName: 'Александра'.repeat(8),
      mode: 'real',
      location: fix,
      liveUrl: LONG_LIVE,
    });
    expect(long).toMatch(/^EMERGÊNCIA: (Александра)+А?л?е?к?с?а?н?д?р?…\s/);
    expect(long).toContain(LONG_LIVE);
    expect(smsParts(long)).toBe(2);
    expect(LONGEST_LIVE).toHaveLength(80);
    const latin = alertMessage({
      language: 'en',
      ownerName: 'a'.repeat(300),
      mode: 'real',
      location: fix,
      liveUrl: LIVE,
    });
    expect(latin).toMatch(/^EMERGENCY: a+ needs help now\./);
    expect(latin).not.toContain('…');
    expect(smsSegments(latin)).toMatchObject({ encoding: 'GSM-7', segments: 2 });
    expect(latin).toContain(LIVE);
  });

  it('never cuts inside a surrogate pair or a grapheme cluster', () => {
    for (const name of ['😀'.repeat(80), '👩‍👩‍👧‍👦'.repeat(20), 'é̃'.repeat(60), '𠀀'.repeat(60)]) {
      const text = alertMessage({ language: 'en', ownerName: name, mode: 'real', location: fix, liveUrl: LIVE });
      expect(text).not.toMatch(LONE_SURROGATE);
      expect(isCutOf(shownName(text, 'en'), name), text).toBe(true);
      expect(smsParts(text)).toBeLessThanOrEqual(2);
    }
  });

  it('keeps control and direction characters of a name out of the text', () => {
    const text = alertMessage({ language: 'en', ownerName: 'Ana\u202eevil\nFAKE', mode: 'real', liveUrl: LIVE });
    expect(text).toBe(`EMERGENCY: Anaevil FAKE needs help now. Location unavailable. Follow: ${LIVE}`);
    const why: LocationError = 'denied';
    expect(alertMessage({ language: 'en', ownerName: '\u202e', mode: 'real', locationError: why })).toMatch(
      /^EMERGENCY: \? needs help now\./,
    );
  });
});

describe('graphemes of a plain text (the fast path past the segmenter)', () => {
  it('are what the segmenter gives, line feeds included; a CR LF pair stays one', async () => {
    const { graphemes } = await import('./sms-encoding.js');
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const segmented = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
    for (const text of [
      'EMERGENCY: Ana needs help now.\nhttps://alerta.test/a/Zt~J1_q?c=9',
      ' !"#$%&()*+,-./:;<=>?@[\\]^_`{|}~',
      'EMERGÊNCIA: a Conceição precisa de ajuda já. Localização às 14:05 ±12 m\nhttps://alerta.test/a/x',
      // Every code point the fast path takes, one by one and side by side.
      Array.from({ length: 0x300 }, (_, c) => (c === 0x0d ? '' : String.fromCharCode(c))).join(''),
      // Past it: a combining accent, a ZWJ family, a flag and CR LF go to the segmenter.
      'Jose\u0301 \u{1f468}\u200d\u{1f469}\u200d\u{1f467} \u{1f1f5}\u{1f1f9}\r\nok',
      '',
    ]) {
      expect(graphemes(text)).toEqual(segmented(text));
    }
    expect(graphemes('a\r\nb')).toEqual(segmented('a\r\nb'));
    expect(graphemes('a\r\nb')).toHaveLength(3);
  });
});

describe('on an engine without Intl.Segmenter (Firefox before 125)', () => {
  it('still cuts the name only between a letter with its marks and the next, never inside a pair', async () => {
    vi.resetModules();
    vi.stubGlobal('Intl', { ...Intl, Segmenter: undefined });
    try {
      const fresh = await import('./sms-text.js');
      const encoding = await import('./sms-encoding.js');
      expect(encoding.graphemes('e\u0301\u0303𝐌a')).toEqual(['e\u0301\u0303', '𝐌', 'a']);
      expect(encoding.graphemes('👩\u200d👧')).toHaveLength(3); // the fallback, not the segmenter
      for (const name of ['😀'.repeat(80), 'и\u0306\u0301'.repeat(60), CYRILLIC.repeat(3)]) {
        const text = fresh.alertMessage({
          language: 'pt',
          ownerName: name,
          mode: 'real',
          location: fix,
          liveUrl: LIVE,
        });
        expect(text.endsWith(` ${LIVE}`)).toBe(true);
        expect(text).not.toMatch(LONE_SURROGATE);
        expect(encoding.smsParts(text)).toBeLessThanOrEqual(2);
      }
      const marked = fresh.alertMessage({
        language: 'en',
        ownerName: 'и\u0306\u0301'.repeat(60),
        mode: 'real',
        liveUrl: LIVE,
      });
      expect(marked).toMatch(/^EMERGENCY: (й\u0301)+… needs help now\./u);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });
});
