/** One flight of a vega-datasets `flights-*.json` file (U.S. BTS on-time data, early 2001). */
export interface Flight {
  /** Local departure time as the dataset writes it: `YYYY/MM/DD HH:MM`. */
  readonly date: string;
  /** Delay in whole minutes; negative means early. */
  readonly delay: number;
  /** Distance in miles. */
  readonly distance: number;
  /** IATA code of the departure airport, e.g. `ORD`. */
  readonly origin: string;
  /** IATA code of the arrival airport. */
  readonly destination: string;
}

const DATE = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}$/;

function checkString(record: Record<string, unknown>, field: string, index: number): string {
  const value = record[field];
  if (typeof value !== 'string' || value === '') {
    throw new Error(`flight #${index} has no ${field}: expected a non-empty string`);
  }
  return value;
}

function checkNumber(record: Record<string, unknown>, field: string, index: number): number {
  const value = record[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`flight #${index} has no ${field}: expected a finite number`);
  }
  return value;
}

/**
 * Parses and checks the text of a flights JSON file.
 *
 * @throws Error naming the first malformed record (by index) and field
 */
export function parseFlights(text: string): Flight[] {
  const data: unknown = JSON.parse(text);
  if (!Array.isArray(data)) throw new Error('a flights file must hold a JSON array');
  return data.map((item: unknown, index): Flight => {
    if (item === null || typeof item !== 'object') throw new Error(`flight #${index} is not an object`);
    const record = item as Record<string, unknown>;
    const date = checkString(record, 'date', index);
    if (!DATE.test(date)) throw new Error(`flight #${index} has date "${date}": expected YYYY/MM/DD HH:MM`);
    return {
      date,
      delay: checkNumber(record, 'delay', index),
      distance: checkNumber(record, 'distance', index),
      origin: checkString(record, 'origin', index),
      destination: checkString(record, 'destination', index),
    };
  });
}

/** The calendar month of a flight, `YYYY-MM`, from its `YYYY/MM/DD HH:MM` date. */
export function flightMonth(flight: Flight): string {
  return `${flight.date.slice(0, 4)}-${flight.date.slice(5, 7)}`;
}
