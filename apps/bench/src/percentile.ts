/**
 * Nearest-rank percentile: the smallest value with at least `p` % of the values at or below it.
 * @param p - percentile from 0 to 100
 * @returns `NaN` for no values
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? Number.NaN;
}
