import { mergeDelayPartials, type DelayPartial } from './delay-partial.js';
import type { FlightsParquet } from './flights-parquet.js';

/**
 * Merges the partials of a whole file: together they must cover each of its row groups exactly
 * once, and hold all of its rows, so that no part is missing or counted twice.
 *
 * @throws Error naming the missing or repeated row groups, or a count that does not add up
 */
export function mergeFilePartials(
  parquet: FlightsParquet,
  dataset: string,
  partials: readonly DelayPartial[],
): DelayPartial {
  const merged = mergeDelayPartials(dataset, partials);
  const covered = new Set(merged.rowGroups);
  const missing = parquet.rowGroups.filter((group) => !covered.has(group.index)).map((group) => group.index);
  const extra = merged.rowGroups.filter((index) => !parquet.rowGroups[index]);
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `the partials do not cover ${parquet.path} exactly: missing row groups [${missing.join(', ')}], ` +
        `unknown row groups [${extra.join(', ')}]`,
    );
  }
  if (merged.flights !== parquet.rows) {
    throw new Error(`the partials hold ${merged.flights} flights, but ${parquet.path} has ${parquet.rows}`);
  }
  return merged;
}
