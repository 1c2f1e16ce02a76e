import type { Airport } from './airport.js';
import { compareCodes } from './compare-codes.js';
import {
  DELAY_PERCENTILE,
  DELAYED_THRESHOLD_MINUTES,
  summarizeDelays,
  type DelayStats,
} from './delay-stats.js';
import { flightMonth, type Flight } from './flight.js';

/** The slice name of a report over every origin airport. */
export const ALL_ORIGINS = 'ALL';

/** Delay figures of one calendar month. */
export interface MonthStats extends DelayStats {
  /** `YYYY-MM`. */
  readonly month: string;
}

/** One route (origin → destination) with its traffic and mean delay. */
export interface RouteStats {
  readonly origin: string;
  /** From airports.csv; `null` when the code is not listed there. */
  readonly originName: string | null;
  readonly destination: string;
  readonly destinationName: string | null;
  /** Flights on the route. */
  readonly flights: number;
  /** Mean delay on the route, in minutes. */
  readonly meanDelayMinutes: number;
}

/** The figures of one origin airport. */
export interface AirportDelays {
  /** IATA code. */
  readonly iata: string;
  /** Name, city and state from airports.csv; `null` when the code is not listed there. */
  readonly name: string | null;
  readonly city: string | null;
  readonly state: string | null;
  /** All the airport's departures. */
  readonly total: DelayStats;
  /** Per calendar month, in ascending order. */
  readonly months: MonthStats[];
  /** Its busiest routes: most flights first, ties by destination code. */
  readonly topRoutes: RouteStats[];
}

/** What a delay report covers. */
export interface DelayReportOptions {
  /** Dataset name, copied into the report, e.g. `flights-20k`. */
  readonly dataset: string;
  /** One origin's IATA code, or {@link ALL_ORIGINS}. */
  readonly origin: string;
  /** Routes listed per airport and for the slice. */
  readonly topRoutes: number;
}

/** A delay report: JSON, stored as the result of a `flightDelayReport` job. */
export interface DelayReport {
  readonly dataset: string;
  /** The slice: one origin's IATA code, or {@link ALL_ORIGINS}. */
  readonly origin: string;
  /** See {@link DELAYED_THRESHOLD_MINUTES}. */
  readonly delayedThresholdMinutes: number;
  /** The percentile given as `p95DelayMinutes`, and how it is computed. */
  readonly percentile: number;
  readonly percentileMethod: 'nearest-rank';
  /** Every flight of the slice. */
  readonly total: DelayStats;
  /** The slice per calendar month, ascending. */
  readonly months: MonthStats[];
  /** The slice's busiest routes: most flights first, ties by origin then destination code. */
  readonly topRoutes: RouteStats[];
  /** Per origin airport: most flights first, ties by code. One entry for a one-origin slice. */
  readonly airports: AirportDelays[];
}

function groupBy<K>(flights: readonly Flight[], key: (flight: Flight) => K): Map<K, Flight[]> {
  const groups = new Map<K, Flight[]>();
  for (const flight of flights) {
    const k = key(flight);
    const group = groups.get(k);
    if (group) group.push(flight);
    else groups.set(k, [flight]);
  }
  return groups;
}

/**
 * Delay figures of flights per calendar month (`YYYY-MM` from the local departure date), in
 * ascending month order.
 */
export function monthlyStats(flights: readonly Flight[]): MonthStats[] {
  return [...groupBy(flights, flightMonth)]
    .sort(([a], [b]) => compareCodes(a, b))
    .map(([month, group]) => ({ month, ...summarizeDelays(group.map((f) => f.delay)) }));
}

/** One route's flight count and summed delay, before ranking. */
export interface RouteTotal {
  readonly origin: string;
  readonly destination: string;
  readonly flights: number;
  readonly delaySumMinutes: number;
}

/**
 * The `limit` busiest of `routes`: most flights first, ties broken by origin code then destination
 * code; each with its mean delay in minutes and airport names.
 */
export function rankRoutes(
  routes: readonly RouteTotal[],
  airports: ReadonlyMap<string, Airport>,
  limit: number,
): RouteStats[] {
  return [...routes]
    .sort(
      (a, b) =>
        b.flights - a.flights ||
        compareCodes(a.origin, b.origin) ||
        compareCodes(a.destination, b.destination),
    )
    .slice(0, limit)
    .map((route) => ({
      origin: route.origin,
      originName: airports.get(route.origin)?.name ?? null,
      destination: route.destination,
      destinationName: airports.get(route.destination)?.name ?? null,
      flights: route.flights,
      meanDelayMinutes: route.delaySumMinutes / route.flights,
    }));
}

/** The `limit` busiest routes among flights, ranked as {@link rankRoutes} does. */
export function topRoutes(
  flights: readonly Flight[],
  airports: ReadonlyMap<string, Airport>,
  limit: number,
): RouteStats[] {
  const routes = new Map<
    string,
    { origin: string; destination: string; flights: number; delaySumMinutes: number }
  >();
  for (const flight of flights) {
    const key = `${flight.origin}\u0000${flight.destination}`;
    const route = routes.get(key);
    if (route) {
      route.flights++;
      route.delaySumMinutes += flight.delay;
    } else {
      routes.set(key, {
        origin: flight.origin,
        destination: flight.destination,
        flights: 1,
        delaySumMinutes: flight.delay,
      });
    }
  }
  return rankRoutes([...routes.values()], airports, limit);
}

/** The figures of one origin airport's departures (all from `iata`). */
export function airportDelays(
  iata: string,
  departures: readonly Flight[],
  airports: ReadonlyMap<string, Airport>,
  routeLimit: number,
): AirportDelays {
  const airport = airports.get(iata);
  return {
    iata,
    name: airport?.name ?? null,
    city: airport?.city ?? null,
    state: airport?.state ?? null,
    total: summarizeDelays(departures.map((f) => f.delay)),
    months: monthlyStats(departures),
    topRoutes: topRoutes(departures, airports, routeLimit),
  };
}

/**
 * Aggregates flights into a {@link DelayReport}: the slice (one origin, or all) as a whole, per
 * month and per route, then per origin airport, with names joined from airports.csv. Pure: no I/O.
 *
 * @throws Error when the slice holds no flight
 */
export function buildDelayReport(
  flights: readonly Flight[],
  airports: ReadonlyMap<string, Airport>,
  options: DelayReportOptions,
): DelayReport {
  const slice = options.origin === ALL_ORIGINS ? flights : flights.filter((f) => f.origin === options.origin);
  if (slice.length === 0) throw new Error(`${options.dataset} has no flight from origin ${options.origin}`);
  const origins = [...groupBy(slice, (f) => f.origin)]
    .sort(([a, x], [b, y]) => y.length - x.length || compareCodes(a, b))
    .map(([iata, departures]) => airportDelays(iata, departures, airports, options.topRoutes));
  return {
    dataset: options.dataset,
    origin: options.origin,
    delayedThresholdMinutes: DELAYED_THRESHOLD_MINUTES,
    percentile: DELAY_PERCENTILE,
    percentileMethod: 'nearest-rank',
    total: summarizeDelays(slice.map((f) => f.delay)),
    months: monthlyStats(slice),
    topRoutes: topRoutes(slice, airports, options.topRoutes),
    airports: origins,
  };
}
