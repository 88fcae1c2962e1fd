/**
 * ISO 8601 text for an epoch-milliseconds time, total: a value no Date can hold (a row
 * written before fix times were bounded, or by hand) gives null instead of throwing, so
 * no stored value can make a read answer 500.
 */
export function isoOrNull(ms: number | string | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const date = new Date(Number(ms));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Like isoOrNull, for times that always exist (created_at…): the epoch when unreadable. */
export const iso = (ms: number | string): string => isoOrNull(ms) ?? new Date(0).toISOString();
