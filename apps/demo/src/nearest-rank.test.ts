import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestRank } from './nearest-rank.js';

test('nearestRank follows the textbook examples', () => {
  const values = [15, 20, 35, 40, 50];
  assert.equal(nearestRank(values, 5), 15);
  assert.equal(nearestRank(values, 30), 20);
  assert.equal(nearestRank(values, 40), 20);
  assert.equal(nearestRank(values, 50), 35);
  assert.equal(nearestRank(values, 100), 50);
  assert.equal(nearestRank(values, 0), 15);
});

test('nearestRank gives exact ranks where percent / 100 × n would overshoot in floating point', () => {
  // 0.07 * 100 is 7.000000000000001 in binary floating point, whose ceiling is 8.
  const values = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(nearestRank(values, 7), 7);
  assert.equal(nearestRank(values, 55), 55);
});

test('nearestRank rejects no values and a percent out of range', () => {
  assert.throws(() => nearestRank([], 50), RangeError);
  assert.throws(() => nearestRank([1], 101), /whole number from 0 to 100/);
  assert.throws(() => nearestRank([1], 12.5), RangeError);
});
