import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The vega-datasets flight files this demo reads. Each is a JSON array of
 * `{date, delay, distance, origin, destination}` covering January to March 2001; the 200k file
 * is left out because it has no airports (`{delay, distance, time}` only).
 */
export const DATASET_NAMES = ['flights-2k', 'flights-5k', 'flights-10k', 'flights-20k'] as const;

/** One of {@link DATASET_NAMES}. */
export type DatasetName = (typeof DATASET_NAMES)[number];

/** The dataset the demo uses unless told otherwise. @defaultValue `'flights-20k'` */
export const DEFAULT_DATASET: DatasetName = 'flights-20k';

/**
 * The real-scale dataset: vega-datasets' `flights-3m.parquet`, 3,000,000 U.S. flights of January
 * to June 2001 (see `flights-parquet.ts` for its layout). It is read in row groups by the
 * `flightDelayPart` jobs, not parsed whole like the JSON files.
 */
export const FLIGHTS_3M = 'flights-3m';

/** Narrows a string to a {@link DatasetName}. */
export function isDatasetName(value: unknown): value is DatasetName {
  return typeof value === 'string' && (DATASET_NAMES as readonly string[]).includes(value);
}

let dataFolder: string | undefined;

/**
 * The `data/` folder of the installed vega-datasets package. Its `exports` map does not list
 * `package.json`, so this resolves the package's entry (`build/index.js`) and takes its parent.
 *
 * @throws Error when the package is not installed or has no `data/` folder
 */
export function vegaDataFolder(): string {
  if (dataFolder !== undefined) return dataFolder;
  const entry = createRequire(import.meta.url).resolve('vega-datasets');
  const folder = join(dirname(entry), '..', 'data');
  if (!existsSync(join(folder, 'airports.csv'))) {
    throw new Error(`vega-datasets has no data folder at ${folder}: reinstall the demo's dependencies`);
  }
  dataFolder = folder;
  return folder;
}

/** Absolute path of a flights dataset, e.g. `…/vega-datasets/data/flights-20k.json`. */
export function datasetFile(name: DatasetName): string {
  return join(vegaDataFolder(), `${name}.json`);
}

/** Absolute path of `flights-3m.parquet` ({@link FLIGHTS_3M}). */
export function flights3mFile(): string {
  return join(vegaDataFolder(), `${FLIGHTS_3M}.parquet`);
}

/** Absolute path of `airports.csv` (header `iata,name,city,state,country,latitude,longitude`). */
export function airportsFile(): string {
  return join(vegaDataFolder(), 'airports.csv');
}
