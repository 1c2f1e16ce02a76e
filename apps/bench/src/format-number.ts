/**
 * A count or rate with thousands separators and no more precision than it carries: whole
 * numbers from 100 up, one decimal from 10, two below 10 (`12,345`, `45.6`, `0.87`).
 * @returns `'—'` for `NaN` or an infinite value
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * A ratio as a multiplier with two significant decimals, such as `0.45×` or `3.1×`.
 * @returns `'—'` when either side is missing or the divisor is zero
 */
export function formatRatio(numerator: number, denominator: number): string {
  const ratio = numerator / denominator;
  if (!Number.isFinite(ratio)) return '—';
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio >= 1 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/** A share as a whole percentage, such as `43 %`; `'—'` when it cannot be computed. */
export function formatPercent(numerator: number, denominator: number): string {
  const share = (numerator / denominator) * 100;
  if (!Number.isFinite(share)) return '—';
  return `${share >= 10 ? share.toFixed(0) : share.toFixed(1)} %`;
}
