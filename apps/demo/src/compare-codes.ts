/**
 * Compares strings by UTF-16 code units, as SQL's binary collation does (not `localeCompare`):
 * the order of airport codes and months in every report and partial.
 *
 * @example
 * ['ORD', 'ATL', 'BOS'].sort(compareCodes); // ['ATL', 'BOS', 'ORD']
 */
export function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
