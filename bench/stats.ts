/** Summary of repeated measurements: every figure in the results carries its spread. */
export interface Summary {
  n: number;
  min: number;
  median: number;
  p95: number;
  max: number;
}

/** The value at quantile `q` (0–1) of sorted samples, by linear interpolation. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (position - low);
}

/** min, median, p95 and max of the samples, rounded to 0.1. */
export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    n: sorted.length,
    min: round(sorted[0] ?? Number.NaN),
    median: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** Epoch milliseconds with sub-millisecond precision, comparable across processes on one machine. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** "a / b / c" for min / median / max. */
export const spread = (s: Summary, digits = 0) =>
  `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;
