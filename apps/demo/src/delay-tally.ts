import { nearestRankPosition } from '@nudge/core';
import { DELAY_PERCENTILE, DELAYED_THRESHOLD_MINUTES, type DelayStats } from './delay-stats.js';

/**
 * Delay figures of a group of flights in a form that adds up: the tally of two groups merged is
 * exactly the tally of their union. A mean is `delaySumMinutes / flights`, and since delays are
 * whole minutes, the histogram gives the exact nearest-rank percentile of any union of groups
 * (a mean of means, or a percentile of percentiles, would not).
 */
export interface DelayTally {
  /** Flights in the group. */
  readonly flights: number;
  /** Sum of their delays, in minutes. */
  readonly delaySumMinutes: number;
  /** Flights delayed more than {@link DELAYED_THRESHOLD_MINUTES}. */
  readonly delayedFlights: number;
  /**
   * Flights per delay, flattened: `[delayMinutes, flights, delayMinutes, flights, …]` with delays
   * strictly ascending and every count at least 1. Pairs in one flat array keep the JSON small.
   */
  readonly histogram: readonly number[];
}

/**
 * Largest delay a tally accepts either way, in minutes: one week (flights-3m's largest is 1,688
 * minutes, 28 hours; a flight a week late was in effect cancelled). Anything beyond is a broken
 * row, and the bound keeps {@link DelayTallyBuilder}'s counts array small.
 */
export const MAX_DELAY_MINUTES = 10_080;

/** Slots a builder starts with; it doubles as delays outside its range arrive. */
const INITIAL_SLOTS = 512;

/**
 * Accumulates delays, or whole tallies, into one {@link DelayTally}. Counts sit in a dense array
 * indexed by delay (real delays span a few thousand minutes), so adding a flight or a histogram
 * pair is an array increment, and the histogram comes out sorted without sorting.
 */
export class DelayTallyBuilder {
  /** Flights added so far. */
  flights = 0;
  /** Their delay sum, in minutes. */
  delaySumMinutes = 0;
  /** Those delayed more than {@link DELAYED_THRESHOLD_MINUTES}. */
  delayedFlights = 0;
  /** `#counts[i]` is the number of flights delayed `#lowest + i` minutes. */
  #counts = new Float64Array(0);
  #lowest = 0;

  /** Makes room for `delay` in the counts array, doubling it as often as needed. */
  #cover(delay: number): void {
    if (delay < -MAX_DELAY_MINUTES || delay > MAX_DELAY_MINUTES || !Number.isInteger(delay)) {
      throw new RangeError(`a delay must be a whole number of minutes within a week (got ${delay})`);
    }
    const length = this.#counts.length;
    if (length === 0) {
      this.#counts = new Float64Array(INITIAL_SLOTS);
      this.#lowest = delay - INITIAL_SLOTS / 2;
      return;
    }
    let lowest = this.#lowest;
    let size = length;
    while (delay < lowest || delay >= lowest + size) {
      lowest = delay < lowest ? lowest - size : lowest;
      size *= 2;
    }
    const counts = new Float64Array(size);
    counts.set(this.#counts, this.#lowest - lowest);
    this.#counts = counts;
    this.#lowest = lowest;
  }

  /**
   * Adds one flight's delay, in whole minutes.
   *
   * @throws RangeError when the delay is not a whole number within {@link MAX_DELAY_MINUTES}
   */
  add(delayMinutes: number): void {
    let slot = delayMinutes - this.#lowest;
    if (!(slot >= 0 && slot < this.#counts.length)) {
      this.#cover(delayMinutes);
      slot = delayMinutes - this.#lowest;
    }
    this.#counts[slot] = (this.#counts[slot] as number) + 1;
    this.flights++;
    this.delaySumMinutes += delayMinutes;
    if (delayMinutes > DELAYED_THRESHOLD_MINUTES) this.delayedFlights++;
  }

  /**
   * Adds every flight of a tally.
   *
   * @throws RangeError when one of its delays is beyond {@link MAX_DELAY_MINUTES}
   */
  addTally(tally: DelayTally): void {
    const { histogram } = tally;
    const last = histogram.length - 2;
    if (last < 0) return;
    // The histogram is sorted: covering its two ends covers every delay in it.
    for (const delay of [histogram[0] as number, histogram[last] as number]) {
      const slot = delay - this.#lowest;
      if (!(slot >= 0 && slot < this.#counts.length)) this.#cover(delay);
    }
    const counts = this.#counts;
    const lowest = this.#lowest;
    for (let i = 0; i < histogram.length; i += 2) {
      const slot = (histogram[i] as number) - lowest;
      counts[slot] = (counts[slot] as number) + (histogram[i + 1] as number);
    }
    this.flights += tally.flights;
    this.delaySumMinutes += tally.delaySumMinutes;
    this.delayedFlights += tally.delayedFlights;
  }

  /** The tally so far, its histogram ascending by delay. */
  toTally(): DelayTally {
    const histogram: number[] = [];
    const counts = this.#counts;
    for (let i = 0; i < counts.length; i++) {
      const count = counts[i] as number;
      if (count > 0) histogram.push(this.#lowest + i, count);
    }
    return {
      flights: this.flights,
      delaySumMinutes: this.delaySumMinutes,
      delayedFlights: this.delayedFlights,
      histogram,
    };
  }
}

/** Merges tallies into one; see {@link DelayTallyBuilder}. */
export function mergeTallies(tallies: Iterable<DelayTally>): DelayTally {
  const builder = new DelayTallyBuilder();
  for (const tally of tallies) builder.addTally(tally);
  return builder.toTally();
}

/**
 * The `percent`-th percentile of a histogram's delays by the nearest-rank method, as
 * `nearestRank` computes it on the sorted delays: the delay at the 1-based rank
 * {@link nearestRankPosition} gives, found by walking the cumulative counts.
 *
 * @throws RangeError when the tally has no flight, or `percent` is not a whole number from 0 to 100
 */
export function tallyPercentile(tally: DelayTally, percent: number): number {
  if (tally.flights === 0) throw new RangeError('the percentile of no flights is undefined');
  const rank = nearestRankPosition(tally.flights, percent);
  const { histogram } = tally;
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 2) {
    seen += histogram[i + 1] as number;
    if (seen >= rank) return histogram[i] as number;
  }
  throw new RangeError(`the histogram holds ${seen} flights, fewer than the tally's ${tally.flights}`);
}

/**
 * The report figures of a tally, equal to what {@link summarizeDelays} gives for the same delays.
 *
 * @throws RangeError when the tally has no flight
 */
export function tallyStats(tally: DelayTally): DelayStats {
  return {
    flights: tally.flights,
    meanDelayMinutes: tally.delaySumMinutes / tally.flights,
    p95DelayMinutes: tallyPercentile(tally, DELAY_PERCENTILE),
    delayedShare: tally.delayedFlights / tally.flights,
  };
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Checks a tally read back from JSON (a part job's result): whole numbers, delays strictly
 * ascending, and counts, sum and delayed flights that agree with the histogram.
 *
 * @param where - names the tally in the error, e.g. `part 3, ORD 2001-02`
 * @throws Error naming `where` and what is wrong
 */
export function parseDelayTally(value: unknown, where: string): DelayTally {
  const tally = value as Partial<Record<keyof DelayTally, unknown>> | null;
  const { flights, delaySumMinutes, delayedFlights, histogram } = tally ?? {};
  if (!isCount(flights) || !Number.isSafeInteger(delaySumMinutes) || !isCount(delayedFlights)) {
    throw new Error(`${where}: flights, delaySumMinutes and delayedFlights must be whole numbers`);
  }
  if (!Array.isArray(histogram) || histogram.length % 2 !== 0) {
    throw new Error(`${where}: histogram must be an array of [delayMinutes, flights] pairs`);
  }
  let count = 0;
  let sum = 0;
  let delayed = 0;
  let previous = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < histogram.length; i += 2) {
    const delay: unknown = histogram[i];
    const n: unknown = histogram[i + 1];
    if (
      !Number.isSafeInteger(delay) ||
      (delay as number) <= previous ||
      Math.abs(delay as number) > MAX_DELAY_MINUTES ||
      !isCount(n) ||
      n === 0
    ) {
      throw new Error(
        `${where}: histogram pair ${i / 2} is not an ascending delay within a week with a count of at least 1`,
      );
    }
    previous = delay as number;
    count += n;
    sum += previous * n;
    if (previous > DELAYED_THRESHOLD_MINUTES) delayed += n;
  }
  if (count !== flights || sum !== delaySumMinutes || delayed !== delayedFlights) {
    throw new Error(`${where}: flights, delaySumMinutes or delayedFlights disagree with the histogram`);
  }
  return {
    flights,
    delaySumMinutes,
    delayedFlights,
    histogram: histogram as number[],
  };
}
