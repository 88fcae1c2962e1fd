/**
 * How a text travels as SMS: its graphemes, the GSM-7 alphabet (and the transliteration into it
 * that keeps a Portuguese text in the cheaper encoding), and how many parts it is sent and
 * billed as. Pure: both the server and the pages use it.
 */

import { remembered } from './remembered.js';

let segmenter: Intl.Segmenter | null | undefined;

/**
 * Code points below U+0300 (Latin letters with their accents precomposed, as Portuguese is
 * written) but CR: each a grapheme of its own, no segmenter needed. Nothing there extends a
 * grapheme (combining marks start at U+0300, joiners and emoji far above), and only CR before
 * LF joins two characters into one.
 */
function plain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x300 || unit === 0x0d) return false;
  }
  return true;
}

/** The user-perceived characters of a text (Intl.Segmenter; where an engine lacks it, a letter and its marks). */
export function graphemes(text: string): string[] {
  // Most SMS are plain, and segmenting is slow on the alert route's path: plain text goes without it.
  if (plain(text)) return text.split('');
  if (segmenter === undefined) {
    segmenter =
      typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  }
  if (segmenter) return Array.from(segmenter.segment(text), (s) => s.segment);
  return text.match(/\P{M}\p{M}*|\p{M}+/gsu) ?? [];
}

// GSM 03.38: the basic table (one septet each) and the extension table (escape + one).
const GSM_BASIC_CHARS =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED_CHARS = '\f^{}\\[~]|€';
/**
 * Septets per UTF-16 code unit up to the highest in GSM-7 (€, U+20AC): 1 for the basic table,
 * 2 for the extension table, 0 outside GSM-7. Every GSM-7 character is one code unit, so a
 * text is read in one pass with no allocation: the alert route counts the parts of every SMS
 * it stores.
 */
const TABLE = new Uint8Array(Math.max(...Array.from(GSM_BASIC_CHARS + GSM_EXTENDED_CHARS, (c) => c.charCodeAt(0))) + 1);
for (const c of GSM_BASIC_CHARS) TABLE[c.charCodeAt(0)] = 1;
for (const c of GSM_EXTENDED_CHARS) TABLE[c.charCodeAt(0)] = 2;
/** Septets a code unit takes in GSM-7; 0 when it has none there. */
const septets = (unit: number): number => TABLE[unit] ?? 0;

export interface SmsSegments {
  encoding: 'GSM-7' | 'UCS-2';
  /** SMS parts the text needs (0 for an empty text). */
  segments: number;
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  length: number;
}

/** How many SMS parts a text takes: GSM-7 160/153 septets, otherwise UCS-2 70/67 code units. */
export function smsSegments(text: string): SmsSegments {
  const gsm = isGsm(text);
  const [single, multi] = gsm ? [160, 153] : [70, 67];
  let segments = 1;
  let used = 0;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    // What the character starting here takes, never split across parts: an escape pair counts
    // 2 septets; in UCS-2 a surrogate pair (a character outside the BMP) 2 code units.
    const unit = text.charCodeAt(i);
    let n = 1;
    if (gsm) n = septets(unit);
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      n = 2;
      i += 1;
    }
    if (used + n > multi) {
      segments += 1;
      used = 0;
    }
    used += n;
    length += n;
  }
  if (length === 0) segments = 0;
  else if (length <= single) segments = 1;
  return { encoding: gsm ? 'GSM-7' : 'UCS-2', segments, length };
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * How many SMS parts a text is sent and billed as: GSM-7 160 septets in one part, else 153
 * a part (extension characters count 2); otherwise UCS-2 70 UTF-16 code units, else 67 a
 * part. An escape pair or a surrogate pair is never split across parts. 0 for "".
 */
export function smsParts(text: string): number {
  return smsSegments(text).segments;
}

const PUNCTUATION: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u00a0': ' ',
  ª: 'a',
  º: 'o',
  // Latin letters with a stroke or a ligature, which have no decomposition to strip.
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Œ: 'OE',
  œ: 'oe',
  Þ: 'Th',
  þ: 'th',
  Ŧ: 'T',
  ŧ: 't',
};

function isGsm(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (septets(text.charCodeAt(i)) === 0) return false;
  return true;
}

const COMBINING = /\p{M}/gu;

/**
 * Replaces each character outside GSM-7 by its closest GSM-7 form when it has one: ã → a,
 * ç → c, ’ → ', 𝐌 (mathematical bold) → M, Ｍ (fullwidth) → M, Ł → L. A character without a
 * Latin form (Cyrillic, Arabic, CJK, emoji…) stays as it is; a grapheme is never split.
 */
export function transliterate(text: string): string {
  if (isGsm(text)) return text;
  return graphemes(text).map(latinOf).join('');
}

/** One grapheme's closest GSM-7 form, or itself when it has none. */
const latinOf = (g: string): string => (g.length === 1 && septets(g.charCodeAt(0)) === 1 ? g : latinKept(g));

// An alert's texts repeat the same few accented letters.
const latinKept = remembered(1_000, (g) => latinForm(g));

function latinForm(g: string): string {
  if (isGsm(g)) return g;
  const composed = g.normalize('NFC');
  if (isGsm(composed)) return composed;
  const mapped = PUNCTUATION[composed];
  if (mapped) return mapped;
  // NFKC: mathematical alphanumerics, fullwidth and other compatibility forms to their letters.
  const compatible = composed.normalize('NFKC');
  if (isGsm(compatible)) return compatible;
  // Then the accents: decomposed, marks removed, recomposed (é stays é, a GSM-7 letter).
  const bare = Array.from(compatible.normalize('NFD').replace(COMBINING, '').normalize('NFC'))
    .map((c) => PUNCTUATION[c] ?? c)
    .join('');
  return isGsm(bare) ? bare : g;
}
