import type { DelayPartial, MonthPartial, OriginPartial, RoutesPartial } from './delay-partial.js';
import { parseDelayTally } from './delay-tally.js';

const MONTH = /^\d{4}-\d{2}$/;

type Fields<T> = Partial<Record<keyof T, unknown>> | null | undefined;

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function parseRoutes(value: unknown, where: string): RoutesPartial {
  const { destinations, flights, delaySumMinutes } = (value ?? {}) as Fields<RoutesPartial> & object;
  if (!Array.isArray(destinations) || !Array.isArray(flights) || !Array.isArray(delaySumMinutes)) {
    throw new Error(`${where}: routes need destinations, flights and delaySumMinutes lists`);
  }
  if (flights.length !== destinations.length || delaySumMinutes.length !== destinations.length) {
    throw new Error(`${where}: the route lists differ in length`);
  }
  let previous = '';
  destinations.forEach((destination: unknown, i) => {
    if (typeof destination !== 'string' || destination <= previous) {
      throw new Error(`${where}: route destinations must be codes in ascending order`);
    }
    previous = destination;
    const n: unknown = flights[i];
    if (!isCount(n) || n === 0 || !Number.isSafeInteger(delaySumMinutes[i])) {
      throw new Error(`${where} → ${destination}: flights must be at least 1 and delaySumMinutes whole`);
    }
  });
  return {
    destinations: destinations as string[],
    flights: flights as number[],
    delaySumMinutes: delaySumMinutes as number[],
  };
}

function parseOrigin(value: unknown, where: string): OriginPartial {
  const { iata, months, routes } = (value ?? {}) as Fields<OriginPartial> & object;
  if (typeof iata !== 'string' || iata === '' || !Array.isArray(months)) {
    throw new Error(`${where}: an origin needs an iata code, months and routes`);
  }
  const parsedMonths = months.map((month: unknown): MonthPartial => {
    const key = (month as Fields<MonthPartial>)?.month;
    if (typeof key !== 'string' || !MONTH.test(key))
      throw new Error(`${where} ${iata}: a month must be YYYY-MM`);
    return { month: key, ...parseDelayTally(month, `${where} ${iata} ${key}`) };
  });
  const parsedRoutes = parseRoutes(routes, `${where} ${iata}`);
  const monthFlights = parsedMonths.reduce((sum, month) => sum + month.flights, 0);
  const routeFlights = parsedRoutes.flights.reduce((sum, flights) => sum + flights, 0);
  if (monthFlights !== routeFlights) {
    throw new Error(`${where} ${iata}: its months hold ${monthFlights} flights, its routes ${routeFlights}`);
  }
  return { iata, months: parsedMonths, routes: parsedRoutes };
}

/**
 * Checks a {@link DelayPartial} read back from JSON (a `flightDelayPart` job's result): its
 * shape, whole numbers, and tallies whose counts, sums and delayed flights agree with their
 * histograms; and that the origins' flights add up to its own count.
 *
 * @param where - names the partial in errors, e.g. `job 12`
 * @throws Error naming `where` and the first thing wrong
 */
export function parseDelayPartial(value: unknown, where: string): DelayPartial {
  const { dataset, rowGroups, flights, origins } = (value ?? {}) as Fields<DelayPartial> & object;
  if (typeof dataset !== 'string' || !isCount(flights)) {
    throw new Error(`${where}: not a delay partial (no dataset or flights)`);
  }
  if (!Array.isArray(rowGroups) || !rowGroups.every(isCount) || !Array.isArray(origins)) {
    throw new Error(`${where}: rowGroups must be row group numbers and origins a list`);
  }
  const parsed = origins.map((origin) => parseOrigin(origin, where));
  let counted = 0;
  for (const origin of parsed) for (const month of origin.months) counted += month.flights;
  if (counted !== flights) throw new Error(`${where}: its months hold ${counted} flights, not ${flights}`);
  return { dataset, rowGroups, flights, origins: parsed };
}
