/**
 * The `percent`-th percentile of values sorted ascending, by the nearest-rank method: the value
 * at 1-based rank `ceil(percent / 100 × n)`, and the smallest value for percent 0. It is always
 * one of the values, never an interpolation (see "Percentile", nearest-rank method, in NIST's
 * Engineering Statistics Handbook or Wikipedia). The rank is computed as `ceil(percent × n / 100)`
 * so integer percents give exact ranks (`0.07 × 100` is 7.000000000000001 in floating point).
 *
 * @param sorted - values in ascending order (not checked)
 * @param percent - a whole number from 0 to 100
 * @throws RangeError when `sorted` is empty or `percent` is not a whole number from 0 to 100
 *
 * @example
 * nearestRank([15, 20, 35, 40, 50], 30); // 20 (rank ceil(1.5) = 2)
 */
export function nearestRank(sorted: ArrayLike<number>, percent: number): number {
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) {
    throw new RangeError(`percent must be a whole number from 0 to 100 (got ${percent})`);
  }
  if (sorted.length === 0) throw new RangeError('the percentile of no values is undefined');
  const rank = Math.max(1, Math.ceil((percent * sorted.length) / 100));
  return sorted[rank - 1] as number;
}
