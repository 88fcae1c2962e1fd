/**
 * The name someone gives with "I'm on my way" on a live page, shared by the server and the
 * page's form. Pure and browser-safe. Everyone holding the link sees the name, so it is
 * cleaned before it is counted: NFC, no direction controls or other invisible characters,
 * no floods of combining marks; then it must have 1 to 40 visible characters (grapheme
 * clusters, as a reader counts them).
 */

/** Visible characters (grapheme clusters) a responder's name may have. */
export const RESPONDER_NAME_MAX = 40;
/** What may be sent before cleaning (UTF-16 code units): enough for 40 emoji and marks, bounded work. */
export const RESPONDER_NAME_INPUT_MAX = 1000;
/** Combining marks kept after one base character, decomposed (Vietnamese, Hebrew points and Indic signs need up to 3). */
export const MARKS_PER_BASE = 3;
/** Code points one visible character may be made of (a family emoji with skin tones takes 11). */
export const CLUSTER_MAX_CODE_POINTS = 12;

export type ResponderNameProblem = 'too_long' | 'no_visible' | 'too_complex';

export type ResponderNameCheck = { ok: true; name: string } | { ok: false; problem: ResponderNameProblem };

/** The API's English texts for each problem (the page shows its own, translated). */
export const RESPONDER_NAME_MESSAGES: Record<ResponderNameProblem, string> = {
  too_long: `Ensure this field has no more than ${RESPONDER_NAME_MAX} characters.`,
  no_visible: 'The name has no visible characters: type a name or leave it empty.',
  too_complex: 'The name has a character made of too many parts.',
};

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const CANCEL_TAG = 0xe007f;
const BLACK_FLAG = 0x1f3f4;

const isMark = (c: string) => /\p{M}/u.test(c);
const isLetter = (c: string) => /\p{L}/u.test(c);
const isPictographic = (c: string) => /\p{Extended_Pictographic}/u.test(c);
const isEmojiPart = (c: string) => /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F)$/u.test(c);
const isVariationSelector = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
const isTag = (cp: number) => cp >= 0xe0020 && cp <= 0xe007f;
// Spacing of any kind, line breaks and controls: read as one plain space.
const isSpace = (c: string) => /[\p{White_Space}\p{Cc}\p{Zl}\p{Zp}\u2800\u3164\uFFA0\u115F\u1160]/u.test(c);
// Invisible or unshowable: format characters (direction controls U+202A–202E, U+2066–2069,
// U+200E/F, U+061C, zero-width characters, soft hyphen…), other default-ignorable code
// points, private-use, unassigned and lone surrogates.
const isInvisible = (c: string) => /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\p{Cs}]/u.test(c);

/**
 * The name as stored and shown, in NFC: controls and spacing read as single spaces; direction
 * controls and invisible characters removed, except the joiners and selectors that emoji and
 * scripts such as Persian and Devanagari spell with; at most MARKS_PER_BASE combining marks
 * after a character (none without one); trimmed. May be empty.
 */
export function cleanResponderName(raw: string): string {
  // Marks are counted decomposed (an accented letter is a letter and its mark), then composed.
  const chars = Array.from(raw.normalize('NFD'));
  const kept: string[] = [];
  let marks = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const cp = c.codePointAt(0) ?? 0;
    const previous = kept[kept.length - 1];
    const next = chars[i + 1];
    if (isSpace(c)) {
      if (previous !== undefined && previous !== ' ') kept.push(' ');
      marks = 0;
      continue;
    }
    if (cp === ZWJ || cp === ZWNJ) {
      // Between emoji (a family, a profession), or inside a word of a script that joins.
      const inEmoji = cp === ZWJ && previous !== undefined && isEmojiPart(previous) && next && isPictographic(next);
      const inWord =
        previous !== undefined && (isLetter(previous) || isMark(previous)) && next !== undefined && isLetter(next);
      if (inEmoji || inWord) kept.push(c);
      continue;
    }
    if (isVariationSelector(cp)) {
      // One selector right after a visible character (text or emoji style).
      const p = previous?.codePointAt(0) ?? 0;
      if (previous !== undefined && previous !== ' ' && !isVariationSelector(p) && !isMark(previous)) kept.push(c);
      continue;
    }
    if (isTag(cp)) {
      // Subdivision flags: the black flag, tag letters, then the cancel tag.
      const p = previous?.codePointAt(0) ?? 0;
      if ((p === BLACK_FLAG || (isTag(p) && p !== CANCEL_TAG)) && (cp !== CANCEL_TAG || p !== BLACK_FLAG)) kept.push(c);
      continue;
    }
    if (isInvisible(c)) continue;
    if (isMark(c)) {
      if (previous === undefined || previous === ' ' || marks >= MARKS_PER_BASE) continue;
      marks++;
      kept.push(c);
      continue;
    }
    marks = 0;
    kept.push(c);
  }
  return kept.join('').normalize('NFC').trim();
}

/** The visible characters of a text: its grapheme clusters (code points where Intl.Segmenter is missing). */
export function graphemes(text: string): string[] {
  if (typeof Intl !== 'undefined' && 'Segmenter' in Intl) {
    return Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (s) => s.segment);
  }
  return Array.from(text);
}

/**
 * A responder's name checked: `{ok, name}` with the cleaned name ('' when none was given), or
 * the problem. A name given but with nothing visible left is refused, not stored as none.
 */
export function checkResponderName(raw: string | null | undefined): ResponderNameCheck {
  if (raw === null || raw === undefined) return { ok: true, name: '' };
  if (raw.length > RESPONDER_NAME_INPUT_MAX) return { ok: false, problem: 'too_long' };
  const name = cleanResponderName(raw);
  if (name === '') return raw.trim() === '' ? { ok: true, name: '' } : { ok: false, problem: 'no_visible' };
  const clusters = graphemes(name);
  if (clusters.length > RESPONDER_NAME_MAX) return { ok: false, problem: 'too_long' };
  if (clusters.some((c) => Array.from(c).length > CLUSTER_MAX_CODE_POINTS))
    return { ok: false, problem: 'too_complex' };
  return { ok: true, name };
}
