import { formatRatio } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';

/** What one system measured in a scenario that all systems run. */
export interface SystemResult {
  /** A {@link SystemId}, or one with a suffix for a variant (`nudge-outbox`). */
  readonly id: string;
  /** Name in the table. */
  readonly label: string;
  /** One value per run; the row shows their median. */
  readonly values: readonly number[];
  readonly lost: number;
  readonly duplicate: number;
  /** The cell for the median, when more than the number belongs in it. */
  readonly display?: string;
  readonly note?: string;
}

/**
 * Rows for a scenario every system ran. The ratio cell compares with nudge on PostgreSQL (or on
 * SQLite when PostgreSQL was not selected): `nudge 0.45×` on a peer's row is nudge's median
 * divided by the peer's; on the SQLite row it is SQLite's divided by PostgreSQL's.
 */
export function comparisonRows(
  scenario: string,
  metric: string,
  results: readonly SystemResult[],
  format: (value: number) => string,
): ResultRow[] {
  const medianOf = (result: SystemResult | undefined): number =>
    result ? median(result.values) : Number.NaN;
  const postgres = results.find((result) => result.id === 'nudge');
  const sqlite = results.find((result) => result.id === 'nudge-sqlite');
  const reference = medianOf(postgres ?? sqlite);
  return results.map((result) => {
    const value = medianOf(result);
    let ratio = '';
    if (result.id === 'nudge-sqlite' && postgres) ratio = `${formatRatio(value, reference)} of PostgreSQL`;
    else if (!result.id.startsWith('nudge')) ratio = `nudge ${formatRatio(reference, value)}`;
    return {
      scenario,
      system: result.label,
      metric,
      value: result.display ?? format(value),
      ratio,
      lost: result.lost,
      duplicate: result.duplicate,
      runs: result.values.length,
      ...(result.note === undefined ? {} : { note: result.note }),
    };
  });
}
