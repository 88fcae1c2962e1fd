/**
 * What a contact's SMS reply means. Pure: replies are read in Portuguese and English whatever
 * the owner's language, in any case, with or without accents and punctuation ("Sim!", "vou.",
 * "On my way"), and in the compatibility forms of their letters and digits ("ＳＴＯＰ", "１").
 */

/** What a reply asks for; `ok` confirms outside an alert and says "on my way" during one. */
export type ReplyWord = 'stop' | 'start' | 'yes' | 'ok' | 'on_my_way' | 'unknown';

export interface ParsedReply {
  word: ReplyWord;
  /** A lone number 1–9: the answer to "which alert?" (1 also says "on my way"). */
  choice: number | null;
}

/** The carriers' and Twilio's opt-out words, and ours in Portuguese. */
const STOP = new Set(['STOP', 'STOPALL', 'PARAR', 'CANCELAR', 'CANCEL', 'UNSUBSCRIBE', 'END', 'QUIT']);
const START = new Set(['START', 'UNSTOP', 'INICIAR']);
const YES = new Set(['YES', 'SIM']);
const ON_MY_WAY = new Set(['1', 'VOU', 'ON MY WAY', 'ONMYWAY']);

/**
 * Upper case, accents and punctuation dropped, spaces collapsed. Compatibility forms first
 * (NFKC: full-width, circled, ligatures), so a phone's full-width STOP is still a STOP.
 */
export function normalizeReply(text: string): string {
  return text
    .normalize('NFKC')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The meaning of one reply. */
export function parseReply(text: string): ParsedReply {
  const words = normalizeReply(text);
  const digit = /^[1-9]$/.test(words) ? Number(words) : null;
  const word: ReplyWord = STOP.has(words)
    ? 'stop'
    : START.has(words)
      ? 'start'
      : YES.has(words)
        ? 'yes'
        : words === 'OK'
          ? 'ok'
          : ON_MY_WAY.has(words)
            ? 'on_my_way'
            : 'unknown';
  return { word, choice: digit };
}
