/**
 * How an SMS about the owner is made to fit: the owner's name cleaned for SMS, and the text
 * laid out from its parts within `SMS_MAX_PARTS`, giving way in a fixed order. Pure and
 * browser-safe, shared by every text the server sends (common/sms-text.ts and its neighbours).
 */

import { remembered } from './remembered.js';
import { graphemes, smsParts, smsSegments, transliterate } from './sms-encoding.js';

/** A text with the owner's name in it: the words before and after the name. */
export type Headline = readonly [before: string, after: string];

/** The most SMS parts any message may take: a longer text is cut down to this, never sent longer. */
export const SMS_MAX_PARTS = 2;

export interface SmsLayout {
  ownerName: string;
  headline: Headline;
  /** What follows the headline, from the fullest form to the barest (the last one is kept whatever happens). */
  details: readonly string[];
  /** A link that is always at the end, exactly as given. */
  link?: { label: string; url: string };
}

// Graphemes of the name kept while details can still give way; below that, details go first.
const NAME_KEEP = 16;

/**
 * The text within `SMS_MAX_PARTS`, what gives way in this order: the accents and look-alike
 * letters of the whole text (transliterated to GSM-7, which holds more than twice as much);
 * the owner's name, cut to `NAME_KEEP` graphemes; the details, from the fullest to the barest;
 * the name, down to one grapheme (or "?"). The link is never touched: any name fits in two
 * parts beside a link of up to 80 characters (APP_URL, the public id and a per-contact part),
 * and a link too long for that is still sent whole, in more parts.
 */
export function fitSms(layout: SmsLayout): string {
  const { link } = layout;
  // Any link of one length in GSM-7's basic table (a septet a character) takes the same room at
  // the very end: the texts of an alert, one per contact with its own link, are laid out once.
  if (!link) return fitted(layout);
  const { encoding, length } = smsSegments(link.url);
  if (encoding !== 'GSM-7' || length !== link.url.length) return fitted(layout);
  return textBefore(JSON.stringify([layout.ownerName, layout.headline, layout.details, link.label, length])) + link.url;
}

/** The text laid out for a link of the length in `key` (`fitSms`), without the link. */
const textBefore = remembered(1_000, (key: string): string => {
  const [ownerName, headline, details, label, length] = JSON.parse(key) as [string, Headline, string[], string, number];
  const text = fitted({ ownerName, headline, details, link: { label, url: '_'.repeat(length) } });
  return text.slice(0, text.length - length);
});

/** `fitSms` for one text. */
function fitted(layout: SmsLayout): string {
  const forms = nameForms(layout.ownerName);
  // The fixed words as written and transliterated, each done once.
  const words = [false, true].map((latin) => {
    const plain = latin ? transliterate : (text: string) => text;
    return {
      before: plain(layout.headline[0]),
      after: layout.details.map((detail) => plain(layout.headline[1] + detail)),
      link: layout.link ? plain(layout.link.label) + layout.link.url : '',
    };
  });
  const compose = (latin: boolean, name: string, detail: number): string => {
    const w = words[latin ? 1 : 0] as (typeof words)[number];
    return w.before + name + w.after[detail] + w.link;
  };
  const fits = (text: string) => smsParts(text) <= SMS_MAX_PARTS;
  const barest = layout.details.length - 1;
  for (let detail = 0; detail <= barest; detail++) {
    // The whole name, as written or transliterated with the rest: the fewest parts, then as written.
    const whole = [compose(false, forms[0], detail), compose(true, forms[1], detail)].filter(fits);
    const best = whole.sort((a, b) => smsParts(a) - smsParts(b))[0];
    if (best !== undefined) return best;
    const keep = detail === barest ? 1 : NAME_KEEP;
    const cut = shortened(forms, keep, (latin, name) => compose(latin, name, detail), fits);
    if (cut !== undefined) return cut;
  }
  // Not even the name's first grapheme fits (a cluster of many code points): the name gives way
  // whole. Only a link too long for two parts takes the text past them.
  return compose(true, '?', barest);
}

/**
 * The owner's name cleaned for SMS (or "?"), as written and transliterated: the same for every
 * text of an alert (one per contact, each with its own link), so made once for a name.
 */
const nameForms = remembered(1_000, (name: string): readonly [string, string] => {
  const clean = smsName(name) || '?';
  return [clean, transliterate(clean)];
});

/**
 * The text with the name cut between graphemes to the longest that fits, keeping at least
 * `keep` graphemes: "…" marks the cut in a UCS-2 text, where it costs no change of encoding;
 * a GSM-7 text is cut cleanly. The form of the name (as written or transliterated) that keeps
 * more of it wins, as written on a tie.
 */
function shortened(
  forms: readonly [string, string],
  keep: number,
  compose: (latin: boolean, name: string) => string,
  fits: (text: string) => boolean,
): string | undefined {
  let best: { kept: number; text: string } | undefined;
  for (const latin of [false, true]) {
    const letters = graphemes(forms[latin ? 1 : 0]);
    const textOf = (kept: number): string | undefined => {
      const name = letters.slice(0, kept).join('').trimEnd();
      if (!name) return undefined;
      const bare = compose(latin, name);
      const text = smsSegments(bare).encoding === 'UCS-2' ? compose(latin, `${name}…`) : bare;
      return fits(text) ? text : undefined;
    };
    // The text grows with the name: a binary search for the most graphemes that fit.
    let [low, high] = [Math.max(keep, (best?.kept ?? 0) + 1), letters.length - 1];
    while (low <= high) {
      const mid = (low + high) >> 1;
      const text = textOf(mid);
      if (text === undefined) high = mid - 1;
      else {
        best = { kept: mid, text };
        low = mid + 1;
      }
    }
  }
  return best?.text;
}

// Bidi controls and other invisible format characters (not the joiners emoji and some scripts
// need), control characters, and a surrogate half without its other half.
const FORMAT = /\p{Cf}/gu;
const JOINERS = new Set(['\u200c', '\u200d']);
const CONTROL = /\p{Cc}/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const STRAY_MARKS = /(^|\s)\p{M}+/gu;
// More graphemes than this can never fit in two parts; longer input is not even looked at.
const NAME_GRAPHEMES_MAX = 320;
const NAME_UNITS_MAX = 4000;
// Combining marks kept on one letter (Vietnamese stacks two, Hebrew with points up to four).
const MARKS_MAX = 4;

/**
 * The owner's name as the SMS carry it: whole characters only, NFC, without control, bidi or
 * other invisible characters, spacing collapsed, no more than four combining marks on a
 * letter and none without one. Empty when nothing visible is left.
 */
export function smsName(name: string): string {
  const clean = name
    .slice(0, NAME_UNITS_MAX)
    .replace(LONE_SURROGATE, '')
    .normalize('NFC')
    .replace(FORMAT, (c) => (JOINERS.has(c) ? c : ''))
    .replace(CONTROL, ' ')
    // Marks first: one after a space (or a control character just made one) goes, and the
    // spacing around it is collapsed and trimmed after.
    .replace(STRAY_MARKS, '$1')
    .replace(/\s+/gu, ' ')
    .trim();
  return graphemes(clean)
    .slice(0, NAME_GRAPHEMES_MAX)
    .map((g) => {
      let marks = 0;
      return g.replace(/\p{M}/gu, (m) => (++marks > MARKS_MAX ? '' : m));
    })
    .join('');
}
