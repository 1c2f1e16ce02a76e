import type { AirportDelays, DelayReport, MonthStats, RouteStats } from './delay-report.js';

/** What the demo tells about the data, computed from the reports the jobs returned. */
export interface DemoFindings {
  readonly dataset: string;
  /** Flights in the dataset. */
  readonly flights: number;
  /** Distinct origin airports in the dataset. */
  readonly originAirports: number;
  /** First and last month covered, `YYYY-MM`. */
  readonly firstMonth: string;
  readonly lastMonth: string;
  /** Among the airports with a report of their own: the highest mean delay (ties: more flights). */
  readonly worstOrigin: AirportDelays;
  /** Among those airports: the lowest share delayed more than 15 min (ties: more flights). */
  readonly bestOnTimeOrigin: AirportDelays;
  /** The route with the most flights in the whole dataset. */
  readonly busiestRoute: RouteStats;
  /**
   * The month with the highest share of flights delayed more than 15 min, among the months that
   * hold at least {@link MIN_MONTH_SHARE} of the flights.
   */
  readonly worstMonth: MonthStats;
}

/**
 * Smallest share of all flights a month needs to be named the most delayed month: flights-3m
 * ends with six flights stamped 2001-07-01 00:00, and a "month" of six flights says nothing.
 */
export const MIN_MONTH_SHARE = 0.01;

function pick<T>(items: readonly T[], better: (a: T, b: T) => boolean, what: string): T {
  let best: T | undefined;
  for (const item of items) if (best === undefined || better(item, best)) best = item;
  if (best === undefined) throw new Error(`no ${what} to compare`);
  return best;
}

/**
 * Picks the demo's findings: the worst and the most punctual of the busiest origins (from their
 * one-origin reports), and the busiest route and worst month (from the all-origins report).
 *
 * @throws Error when there is no one-origin report, or the all-origins report is empty
 */
export function computeFindings(originReports: readonly DelayReport[], allReport: DelayReport): DemoFindings {
  const origins = originReports.flatMap((report) => report.airports);
  const months = allReport.months;
  return {
    dataset: allReport.dataset,
    flights: allReport.total.flights,
    originAirports: allReport.airports.length,
    firstMonth: months[0]?.month ?? '',
    lastMonth: months[months.length - 1]?.month ?? '',
    worstOrigin: pick(
      origins,
      (a, b) =>
        a.total.meanDelayMinutes > b.total.meanDelayMinutes ||
        (a.total.meanDelayMinutes === b.total.meanDelayMinutes && a.total.flights > b.total.flights),
      'origin report',
    ),
    bestOnTimeOrigin: pick(
      origins,
      (a, b) =>
        a.total.delayedShare < b.total.delayedShare ||
        (a.total.delayedShare === b.total.delayedShare && a.total.flights > b.total.flights),
      'origin report',
    ),
    busiestRoute: pick(allReport.topRoutes, (a, b) => a.flights > b.flights, 'route'),
    worstMonth: pick(
      months.filter((month) => month.flights >= MIN_MONTH_SHARE * allReport.total.flights),
      (a, b) => a.delayedShare > b.delayedShare,
      'month',
    ),
  };
}
