import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../../../common/constants.js';

const isLanguage = (value: string): value is Language => (LANGUAGES as readonly string[]).includes(value);

/**
 * The best supported language of an Accept-Language header ("pt-PT,pt;q=0.9,en;q=0.8"),
 * by quality then order; null when it names none of ours.
 */
export function languageFromHeader(header: string | undefined): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number.parseFloat(q.slice(2)) : 1;
      return {
        base: tag.trim().toLowerCase().split('-')[0] ?? '',
        quality: Number.isFinite(quality) ? quality : 0,
        index,
      };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked.map((entry) => entry.base).find(isLanguage) ?? null;
}

/** The language of a request's Accept-Language header, else the given fallback (the user's saved one), else Portuguese. */
export function requestLanguage(header: string | string[] | undefined, fallback?: string): Language {
  const fromHeader = languageFromHeader(Array.isArray(header) ? header[0] : header);
  if (fromHeader) return fromHeader;
  return fallback && isLanguage(fallback) ? fallback : DEFAULT_LANGUAGE;
}
