import { FLIGHTS_3M } from './dataset-files.js';
import { DelayPartialBuilder, type DelayPartial } from './delay-partial.js';
import type { FlightsParquet } from './flights-parquet.js';

/**
 * Reads one row group of a flights parquet file and aggregates it into a {@link DelayPartial}:
 * the work of one `flightDelayPart` job, CPU-bound (ZSTD and dictionary decoding, then one pass
 * over the rows).
 *
 * @param dataset - copied into the partial @defaultValue `'flights-3m'`
 * @throws RangeError when the file has no such row group
 * @throws Error when a row is malformed
 */
export async function rowGroupPartial(
  parquet: FlightsParquet,
  rowGroup: number,
  dataset: string = FLIGHTS_3M,
): Promise<DelayPartial> {
  const columns = await parquet.readRowGroup(rowGroup);
  const builder = new DelayPartialBuilder(dataset);
  builder.addRowGroup(rowGroup, columns);
  return builder.toPartial();
}
