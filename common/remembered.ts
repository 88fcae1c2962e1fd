/**
 * `compute` with its answers kept by argument: for a pure lookup that is costly and asked again
 * and again with few different arguments (a time zone's formatter, a letter's transliteration).
 * At most `max` are kept; once full, all are forgotten, so hostile input never grows it further.
 */
export function remembered<T>(max: number, compute: (key: string) => T): (key: string) => T {
  const kept = new Map<string, T>();
  return (key) => {
    if (kept.has(key)) return kept.get(key) as T;
    const value = compute(key);
    if (kept.size >= max) kept.clear();
    kept.set(key, value);
    return value;
  };
}
