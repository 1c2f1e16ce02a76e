import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestRank } from '@nudge/core';
import { summarizeDelays } from './delay-stats.js';
import {
  DelayTallyBuilder,
  MAX_DELAY_MINUTES,
  mergeTallies,
  parseDelayTally,
  tallyPercentile,
  tallyStats,
} from './delay-tally.js';

/** Delays from a fixed linear congruential sequence, so the test is the same on every run. */
function delays(count: number, seed: number, spread: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (state % spread) - Math.floor(spread / 5);
  });
}

function tallyOf(values: readonly number[]): ReturnType<DelayTallyBuilder['toTally']> {
  const builder = new DelayTallyBuilder();
  for (const value of values) builder.add(value);
  return builder.toTally();
}

test('a tally gives the same figures as summarizeDelays, p95 by nearest rank included', () => {
  for (const [count, seed, spread] of [
    [1, 1, 10],
    [20, 2, 7],
    [999, 3, 400],
    [5000, 4, 3000],
  ] as const) {
    const values = delays(count, seed, spread);
    assert.deepEqual(tallyStats(tallyOf(values)), summarizeDelays(values), `${count} delays`);
    const sorted = [...values].sort((a, b) => a - b);
    for (const percent of [0, 1, 7, 50, 95, 99, 100]) {
      assert.equal(tallyPercentile(tallyOf(values), percent), nearestRank(sorted, percent), `p${percent}`);
    }
  }
});

test('merging tallies equals tallying the union, in any order', () => {
  const parts = [delays(300, 5, 90), delays(10, 6, 4000), delays(700, 7, 50)];
  const whole = tallyOf(parts.flat());
  assert.deepEqual(mergeTallies(parts.map(tallyOf)), whole);
  assert.deepEqual(mergeTallies([...parts].reverse().map(tallyOf)), whole);
});

test('the histogram is ascending, flattened and grows to delays far on either side', () => {
  const tally = tallyOf([5, -3, 5, 2000, -1500, 5]);
  assert.deepEqual(tally.histogram, [-1500, 1, -3, 1, 5, 3, 2000, 1]);
  assert.equal(tally.flights, 6);
  assert.equal(tally.delaySumMinutes, 5 - 3 + 5 + 2000 - 1500 + 5);
  assert.equal(tally.delayedFlights, 1);
  assert.throws(() => new DelayTallyBuilder().add(MAX_DELAY_MINUTES + 1), RangeError);
  assert.throws(() => new DelayTallyBuilder().add(1.5), RangeError);
});

test('parseDelayTally accepts a JSON round trip and rejects counts that disagree', () => {
  const tally = tallyOf(delays(200, 8, 120));
  assert.deepEqual(parseDelayTally(JSON.parse(JSON.stringify(tally)), 't'), tally);
  assert.throws(
    () => parseDelayTally({ ...tally, flights: tally.flights + 1 }, 'ORD 2001-01'),
    /ORD 2001-01: .*disagree/,
  );
  assert.throws(() => parseDelayTally({ ...tally, histogram: [3, 1, 2, 1] }, 't'), /ascending/);
  assert.throws(() => parseDelayTally({ ...tally, histogram: [1, 2, 3] }, 't'), /pairs/);
  assert.throws(() => parseDelayTally(null, 't'), /whole numbers/);
});
