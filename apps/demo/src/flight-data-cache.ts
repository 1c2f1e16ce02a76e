import { readFile } from 'node:fs/promises';
import { parseAirports, type Airport } from './airport.js';
import { airportsFile, datasetFile, flights3mFile, type DatasetName } from './dataset-files.js';
import { parseFlights, type Flight } from './flight.js';
import { FlightsParquet } from './flights-parquet.js';

// Module state is per worker thread: each thread reads and parses a file once, then every job it
// runs reuses the parsed data. A failed load is forgotten so the next attempt reads again.
const flightsByDataset = new Map<DatasetName, Promise<readonly Flight[]>>();
let airportsByCode: Promise<ReadonlyMap<string, Airport>> | undefined;
let flights3m: Promise<FlightsParquet> | undefined;

/**
 * The parsed flights of a dataset, read once per thread.
 *
 * @throws Error when the file cannot be read or holds a malformed flight
 */
export function loadFlights(dataset: DatasetName): Promise<readonly Flight[]> {
  let flights = flightsByDataset.get(dataset);
  if (!flights) {
    const file = datasetFile(dataset);
    flights = readFile(file, 'utf8').then(
      (text) => parseFlights(text),
      (error: unknown) => {
        throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    flightsByDataset.set(dataset, flights);
    flights.catch(() => flightsByDataset.delete(dataset));
  }
  return flights;
}

/**
 * The airports of airports.csv by IATA code, read once per thread.
 *
 * @throws Error when the file cannot be read or lacks a needed column
 */
export function loadAirports(): Promise<ReadonlyMap<string, Airport>> {
  if (!airportsByCode) {
    const loading = readFile(airportsFile(), 'utf8').then(parseAirports);
    airportsByCode = loading;
    loading.catch(() => {
      if (airportsByCode === loading) airportsByCode = undefined;
    });
  }
  return airportsByCode;
}

/**
 * flights-3m.parquet opened once per thread: its footer is parsed once, and each part job then
 * reads only its own row group.
 *
 * @throws Error when the file cannot be read or lacks a column a report needs
 */
export function loadFlights3m(): Promise<FlightsParquet> {
  if (!flights3m) {
    const opening = FlightsParquet.open(flights3mFile());
    flights3m = opening;
    opening.catch(() => {
      if (flights3m === opening) flights3m = undefined;
    });
  }
  return flights3m;
}
