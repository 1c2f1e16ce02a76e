import { nearestRank } from '@nudge/core';

/**
 * A flight counts as delayed when its delay is strictly more than this many minutes. BTS calls a
 * flight late at 15 minutes or more; this demo's reports use "more than 15", as specified.
 */
export const DELAYED_THRESHOLD_MINUTES = 15;

/** The percentile every report gives, by the nearest-rank method ({@link nearestRank}). */
export const DELAY_PERCENTILE = 95;

/** Delay figures of a group of flights. */
export interface DelayStats {
  /** Number of flights in the group, at least 1. */
  readonly flights: number;
  /** Arithmetic mean delay, in minutes (negative when flights were early on average). */
  readonly meanDelayMinutes: number;
  /** 95th percentile delay by nearest rank, in minutes: always one of the group's delays. */
  readonly p95DelayMinutes: number;
  /** Share of flights delayed more than {@link DELAYED_THRESHOLD_MINUTES}, from 0 to 1. */
  readonly delayedShare: number;
}

/**
 * Count, mean, p95 (nearest rank) and share delayed of a group of delays, in minutes.
 *
 * @throws RangeError when `delays` is empty
 */
export function summarizeDelays(delays: readonly number[]): DelayStats {
  if (delays.length === 0) throw new RangeError('cannot summarize the delays of no flights');
  let sum = 0;
  let delayed = 0;
  for (const delay of delays) {
    sum += delay;
    if (delay > DELAYED_THRESHOLD_MINUTES) delayed++;
  }
  const sorted = Float64Array.from(delays).sort();
  return {
    flights: delays.length,
    meanDelayMinutes: sum / delays.length,
    p95DelayMinutes: nearestRank(sorted, DELAY_PERCENTILE),
    delayedShare: delayed / delays.length,
  };
}
