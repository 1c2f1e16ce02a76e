import { parseCsv } from './parse-csv.js';

/** An airport of vega-datasets' `airports.csv` (U.S. airports, Data.gov). */
export interface Airport {
  /** IATA code, e.g. `ORD`. */
  readonly iata: string;
  /** Airport name, e.g. `Chicago O'Hare International`. */
  readonly name: string;
  readonly city: string;
  /** Two-letter state or territory code. */
  readonly state: string;
}

const COLUMNS = ['iata', 'name', 'city', 'state'] as const;

/**
 * Parses `airports.csv` (header `iata,name,city,state,country,latitude,longitude`; names may be
 * quoted and hold commas or doubled quotes) into a map keyed by IATA code.
 *
 * @throws Error when the header lacks one of `iata`, `name`, `city`, `state`
 */
export function parseAirports(text: string): Map<string, Airport> {
  const [header, ...rows] = parseCsv(text);
  const index = new Map((header ?? []).map((column, position) => [column.trim(), position]));
  const position = (column: (typeof COLUMNS)[number]): number => {
    const found = index.get(column);
    if (found === undefined) throw new Error(`airports CSV has no "${column}" column`);
    return found;
  };
  const [iataAt, nameAt, cityAt, stateAt] = COLUMNS.map(position) as [number, number, number, number];
  const airports = new Map<string, Airport>();
  for (const row of rows) {
    const iata = row[iataAt]?.trim();
    if (!iata) continue;
    airports.set(iata, {
      iata,
      name: row[nameAt] ?? '',
      city: row[cityAt] ?? '',
      state: row[stateAt] ?? '',
    });
  }
  return airports;
}
