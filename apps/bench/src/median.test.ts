import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { median } from './median.js';

describe('median', () => {
  it('takes the middle of an odd count, whatever the order', () => {
    assert.equal(median([9, 1, 5]), 5);
  });
  it('averages the two middle values of an even count', () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
  it('is NaN for no values', () => {
    assert.ok(Number.isNaN(median([])));
  });
});
