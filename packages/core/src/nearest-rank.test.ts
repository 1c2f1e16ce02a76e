import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nearestRank, nearestRankPosition } from './nearest-rank.js';

/** The rank as `ceil((percent / 100) × count)` in floating point: what this module replaces. */
const floatRank = (count: number, percent: number): number => Math.max(1, Math.ceil((percent / 100) * count));

describe('nearestRank', () => {
  it('follows the textbook examples', () => {
    const values = [15, 20, 35, 40, 50];
    assert.equal(nearestRank(values, 5), 15);
    assert.equal(nearestRank(values, 30), 20);
    assert.equal(nearestRank(values, 40), 20);
    assert.equal(nearestRank(values, 50), 35);
    assert.equal(nearestRank(values, 100), 50);
    assert.equal(nearestRank(values, 0), 15);
  });

  it('gives exact ranks where (percent / 100) × count overshoots in floating point', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    const cases: Array<[count: number, percent: number, rank: number]> = [
      [100, 7, 7], // 0.07 × 100 = 7.000000000000001
      [100, 55, 55], // 0.55 × 100 = 55.00000000000001
      [25, 28, 7], // 0.28 × 25 = 7.000000000000001
      [50, 14, 7], // 0.14 × 50 = 7.000000000000001
      [200, 55, 110],
    ];
    for (const [count, percent, rank] of cases) {
      assert.equal(
        floatRank(count, percent),
        rank + 1,
        `the float rank overshoots for p${percent} of ${count}`,
      );
      assert.equal(nearestRankPosition(count, percent), rank, `p${percent} of ${count}`);
    }
    assert.equal(nearestRank(hundred, 7), 7);
    assert.equal(nearestRank(hundred, 55), 55);
  });

  it('agrees with a BigInt ceiling on every percent for counts up to 1,000', () => {
    for (let count = 1; count <= 1000; count += 1) {
      for (let percent = 0; percent <= 100; percent += 1) {
        const scaled = BigInt(percent * count);
        const exact = Math.max(1, Number((scaled + 99n) / 100n));
        if (nearestRankPosition(count, percent) !== exact) {
          assert.fail(`p${percent} of ${count}: ${nearestRankPosition(count, percent)}, expected ${exact}`);
        }
      }
    }
  });

  it('is exact for counts far beyond any array', () => {
    const count = 2 ** 40 + 1;
    assert.equal(nearestRankPosition(count, 50), 2 ** 39 + 1);
    assert.equal(nearestRankPosition(count, 100), count);
  });

  it('rejects no values and a percent or count out of range', () => {
    assert.throws(() => nearestRank([], 50), /percentile of no values/);
    assert.throws(() => nearestRank([1], 101), /whole number from 0 to 100/);
    assert.throws(() => nearestRank([1], 12.5), RangeError);
    assert.throws(() => nearestRankPosition(2.5, 50), /count must be a whole number/);
    assert.throws(() => nearestRankPosition(Number.MAX_SAFE_INTEGER, 50), /count must be a whole number/);
  });
});
