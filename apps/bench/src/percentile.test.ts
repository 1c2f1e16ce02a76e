import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { percentile } from './percentile.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose

  it('picks the value at the rank ceil(p/100 · n)', () => {
    assert.equal(percentile(hundred, 50), 50);
    assert.equal(percentile(hundred, 95), 95);
    assert.equal(percentile(hundred, 99), 99);
  });
  it('gives the smallest value for p = 0 and the largest for p = 100', () => {
    assert.equal(percentile(hundred, 0), 1);
    assert.equal(percentile(hundred, 100), 100);
  });
  it('works on one value and is NaN on none', () => {
    assert.equal(percentile([7], 99), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
  });
  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    assert.deepEqual(values, [3, 1, 2]);
  });
});
