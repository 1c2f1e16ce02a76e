/** The most values {@link nearestRankPosition} ranks exactly: `percent × count` stays a safe integer. */
const MAX_COUNT = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/**
 * The 1-based rank of the `percent`-th percentile among `count` sorted values, by the
 * nearest-rank method: `max(1, ceil(percent × count / 100))` (see "Percentile", nearest-rank
 * method, in NIST's Engineering Statistics Handbook or Wikipedia). Computed in integers, so the
 * rank is exact: `ceil((7 / 100) × 100)` is 8 in floating point, because `0.07 × 100` is
 * 7.000000000000001; here it is 7.
 *
 * @param count - how many values, a whole number from 1 up to `Number.MAX_SAFE_INTEGER / 100`
 * @param percent - a whole number from 0 to 100
 * @throws RangeError when `count` or `percent` is out of range or not a whole number
 *
 * @example
 * nearestRankPosition(5, 30); // 2: ceil(1.5)
 * nearestRankPosition(100, 7); // 7
 */
export function nearestRankPosition(count: number, percent: number): number {
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) {
    throw new RangeError(`percent must be a whole number from 0 to 100 (got ${percent})`);
  }
  if (count === 0) throw new RangeError('the percentile of no values is undefined');
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new RangeError(`count must be a whole number from 1 to ${MAX_COUNT} (got ${count})`);
  }
  const scaled = percent * count;
  const remainder = scaled % 100;
  const rank = (scaled - remainder) / 100 + (remainder === 0 ? 0 : 1);
  return Math.max(1, rank);
}

/**
 * The `percent`-th percentile of values sorted ascending, by the nearest-rank method: the value
 * at the rank {@link nearestRankPosition} gives, and the smallest value for percent 0. It is
 * always one of the values, never an interpolation.
 *
 * @param sorted - values in ascending order (not checked)
 * @param percent - a whole number from 0 to 100
 * @throws RangeError when `sorted` is empty or `percent` is not a whole number from 0 to 100
 *
 * @example
 * nearestRank([15, 20, 35, 40, 50], 30); // 20 (rank ceil(1.5) = 2)
 */
export function nearestRank(sorted: ArrayLike<number>, percent: number): number {
  return sorted[nearestRankPosition(sorted.length, percent) - 1] as number;
}
