import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { latencyPercentiles } from './latency-percentiles.js';

describe('latencyPercentiles', () => {
  it('reads nearest-rank percentiles of unsorted samples without sorting them in place', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    const before = [...samples];
    assert.deepEqual(latencyPercentiles(samples), { count: 100, p50Ms: 50, p95Ms: 95, p99Ms: 99 });
    assert.deepEqual(samples, before);
  });

  it('gives the largest sample as p99 of a small set, and one sample for every percentile', () => {
    assert.equal(latencyPercentiles([3, 1, 2, 10, 4]).p99Ms, 10);
    assert.equal(latencyPercentiles([3, 1, 2, 10, 4]).p50Ms, 3);
    assert.deepEqual(latencyPercentiles([7.5]), { count: 1, p50Ms: 7.5, p95Ms: 7.5, p99Ms: 7.5 });
  });

  it('is NaN for no samples', () => {
    const none = latencyPercentiles([]);
    assert.equal(none.count, 0);
    assert.ok(Number.isNaN(none.p50Ms) && Number.isNaN(none.p99Ms));
  });
});
