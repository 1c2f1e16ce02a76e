import { compareCodes } from './compare-codes.js';
import { DelayTallyBuilder, type DelayTally } from './delay-tally.js';
import type { FlightColumns } from './flights-parquet.js';

/**
 * One origin's routes, column by column (route `i` flies to `destinations[i]`), which keeps the
 * JSON about a third the size of one object per route. Every route is kept, not just the busiest:
 * the top routes can only be picked exactly once the counts are merged.
 */
export interface RoutesPartial {
  /** IATA codes of the arrival airports, ascending. */
  readonly destinations: readonly string[];
  /** Flights per route. */
  readonly flights: readonly number[];
  /** Sum of each route's delays, in minutes. */
  readonly delaySumMinutes: readonly number[];
}

/** One origin's flights in one calendar month. */
export interface MonthPartial extends DelayTally {
  /** `YYYY-MM`. */
  readonly month: string;
}

/** One origin airport's flights: per month, and per route over all months. */
export interface OriginPartial {
  /** IATA code. */
  readonly iata: string;
  /** Ascending by month; only months with flights. */
  readonly months: readonly MonthPartial[];
  /** Per destination, over all months. */
  readonly routes: RoutesPartial;
}

/**
 * A mergeable partial delay report: what one `flightDelayPart` job returns for its row group, and
 * what merging partials gives. Counts, sums and histograms add up exactly, so the report built
 * from merged partials equals the report built from all the flights at once. JSON, ordered by
 * arrays (a PostgreSQL `jsonb` result does not keep object key order).
 */
export interface DelayPartial {
  /** Dataset name, e.g. `flights-3m`. */
  readonly dataset: string;
  /** The file's row groups it covers, ascending, each once. */
  readonly rowGroups: readonly number[];
  /** Flights it covers. */
  readonly flights: number;
  /** Ascending by IATA code. */
  readonly origins: readonly OriginPartial[];
}

interface OriginBuilder {
  readonly months: Map<string, DelayTallyBuilder>;
  readonly routes: Map<string, { flights: number; delaySumMinutes: number }>;
}

/** Accumulates flights, or whole partials, into one {@link DelayPartial}. */
export class DelayPartialBuilder {
  readonly #dataset: string;
  readonly #rowGroups = new Set<number>();
  readonly #origins = new Map<string, OriginBuilder>();
  #flights = 0;

  /** @param dataset - copied into the partial, e.g. `flights-3m` */
  constructor(dataset: string) {
    this.#dataset = dataset;
  }

  #origin(iata: string): OriginBuilder {
    let origin = this.#origins.get(iata);
    if (!origin) {
      origin = { months: new Map(), routes: new Map() };
      this.#origins.set(iata, origin);
    }
    return origin;
  }

  #claim(rowGroup: number): void {
    if (this.#rowGroups.has(rowGroup)) throw new Error(`row group ${rowGroup} would be counted twice`);
    this.#rowGroups.add(rowGroup);
  }

  /**
   * Adds every flight of one row group.
   *
   * @throws Error when that row group was already added
   */
  addRowGroup(rowGroup: number, columns: FlightColumns): void {
    this.#claim(rowGroup);
    const { month, delayMinutes, origin, destination } = columns;
    for (let i = 0; i < columns.rows; i++) {
      const from = this.#origin(origin[i] as string);
      const key = month[i] as string;
      let tally = from.months.get(key);
      if (!tally) {
        tally = new DelayTallyBuilder();
        from.months.set(key, tally);
      }
      const delay = delayMinutes[i] as number;
      tally.add(delay);
      const to = destination[i] as string;
      const route = from.routes.get(to);
      if (route) {
        route.flights++;
        route.delaySumMinutes += delay;
      } else {
        from.routes.set(to, { flights: 1, delaySumMinutes: delay });
      }
    }
    this.#flights += columns.rows;
  }

  /**
   * Adds a partial, e.g. a part job's result.
   *
   * @throws Error when it is of another dataset or covers a row group already added
   */
  addPartial(partial: DelayPartial): void {
    if (partial.dataset !== this.#dataset) {
      throw new Error(`cannot merge a partial of ${partial.dataset} into one of ${this.#dataset}`);
    }
    for (const rowGroup of partial.rowGroups) this.#claim(rowGroup);
    for (const { iata, months, routes } of partial.origins) {
      const origin = this.#origin(iata);
      for (const month of months) {
        let tally = origin.months.get(month.month);
        if (!tally) {
          tally = new DelayTallyBuilder();
          origin.months.set(month.month, tally);
        }
        tally.addTally(month);
      }
      routes.destinations.forEach((destination, i) => {
        const flights = routes.flights[i] as number;
        const delaySumMinutes = routes.delaySumMinutes[i] as number;
        const route = origin.routes.get(destination);
        if (route) {
          route.flights += flights;
          route.delaySumMinutes += delaySumMinutes;
        } else {
          origin.routes.set(destination, { flights, delaySumMinutes });
        }
      });
    }
    this.#flights += partial.flights;
  }

  /** The partial so far, every list in ascending order. */
  toPartial(): DelayPartial {
    const byKey = <T>([a]: [string, T], [b]: [string, T]): number => compareCodes(a, b);
    return {
      dataset: this.#dataset,
      rowGroups: [...this.#rowGroups].sort((a, b) => a - b),
      flights: this.#flights,
      origins: [...this.#origins].sort(byKey).map(([iata, origin]) => {
        const routes = [...origin.routes].sort(byKey);
        return {
          iata,
          months: [...origin.months].sort(byKey).map(([month, tally]) => ({ month, ...tally.toTally() })),
          routes: {
            destinations: routes.map(([destination]) => destination),
            flights: routes.map(([, route]) => route.flights),
            delaySumMinutes: routes.map(([, route]) => route.delaySumMinutes),
          },
        };
      }),
    };
  }
}

/**
 * Merges partials of one dataset into one.
 *
 * @throws Error when they mix datasets or two cover the same row group
 */
export function mergeDelayPartials(dataset: string, partials: Iterable<DelayPartial>): DelayPartial {
  const builder = new DelayPartialBuilder(dataset);
  for (const partial of partials) builder.addPartial(partial);
  return builder.toPartial();
}
