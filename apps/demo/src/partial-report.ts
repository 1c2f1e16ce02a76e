import type { Airport } from './airport.js';
import { compareCodes } from './compare-codes.js';
import type { DelayPartial, OriginPartial } from './delay-partial.js';
import {
  ALL_ORIGINS,
  type AirportDelays,
  type DelayReport,
  type DelayReportOptions,
  type MonthStats,
  rankRoutes,
  type RouteTotal,
} from './delay-report.js';
import { DELAY_PERCENTILE, DELAYED_THRESHOLD_MINUTES } from './delay-stats.js';
import { mergeTallies, tallyStats, type DelayTally } from './delay-tally.js';

/** Per calendar month, ascending: the tallies of each month merged across origins. */
function monthStats(origins: readonly OriginPartial[]): MonthStats[] {
  const byMonth = new Map<string, DelayTally[]>();
  for (const origin of origins) {
    for (const month of origin.months) {
      const tallies = byMonth.get(month.month);
      if (tallies) tallies.push(month);
      else byMonth.set(month.month, [month]);
    }
  }
  return [...byMonth]
    .sort(([a], [b]) => compareCodes(a, b))
    .map(([month, tallies]) => ({ month, ...tallyStats(mergeTallies(tallies)) }));
}

function routeTotals({ iata, routes }: OriginPartial): RouteTotal[] {
  return routes.destinations.map((destination, i) => ({
    origin: iata,
    destination,
    flights: routes.flights[i] as number,
    delaySumMinutes: routes.delaySumMinutes[i] as number,
  }));
}

function originDelays(
  origin: OriginPartial,
  airports: ReadonlyMap<string, Airport>,
  routeLimit: number,
): AirportDelays {
  const airport = airports.get(origin.iata);
  return {
    iata: origin.iata,
    name: airport?.name ?? null,
    city: airport?.city ?? null,
    state: airport?.state ?? null,
    total: tallyStats(mergeTallies(origin.months)),
    months: monthStats([origin]),
    topRoutes: rankRoutes(routeTotals(origin), airports, routeLimit),
  };
}

/**
 * Builds a {@link DelayReport} from a (merged) partial: the same report, figure for figure, that
 * {@link buildDelayReport} gives for the same flights, with the p95 read off the histograms.
 * Pure: no I/O.
 *
 * @throws Error when the slice holds no flight
 */
export function buildPartialReport(
  partial: DelayPartial,
  airports: ReadonlyMap<string, Airport>,
  options: DelayReportOptions,
): DelayReport {
  const slice =
    options.origin === ALL_ORIGINS
      ? partial.origins
      : partial.origins.filter((origin) => origin.iata === options.origin);
  if (slice.length === 0) throw new Error(`${options.dataset} has no flight from origin ${options.origin}`);
  const origins = slice
    .map((origin) => originDelays(origin, airports, options.topRoutes))
    .sort((a, b) => b.total.flights - a.total.flights || compareCodes(a.iata, b.iata));
  return {
    dataset: options.dataset,
    origin: options.origin,
    delayedThresholdMinutes: DELAYED_THRESHOLD_MINUTES,
    percentile: DELAY_PERCENTILE,
    percentileMethod: 'nearest-rank',
    total: tallyStats(mergeTallies(slice.flatMap((origin) => origin.months))),
    months: monthStats(slice),
    topRoutes: rankRoutes(slice.flatMap(routeTotals), airports, options.topRoutes),
    airports: origins,
  };
}
