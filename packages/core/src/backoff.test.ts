import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BACKOFF, retryDelayMs, validateBackoff } from './backoff.js';

describe('retryDelayMs', () => {
  const noJitter = { baseMs: 1000, maxMs: 60_000, jitterRatio: 0 };

  it('doubles from baseMs after each failed attempt', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, noJitter)),
      [1000, 2000, 4000, 8000, 16_000],
    );
  });

  it('is capped at maxMs, also for huge attempt numbers', () => {
    assert.equal(retryDelayMs(7, noJitter), 60_000);
    assert.equal(retryDelayMs(10_000, noJitter), 60_000);
  });

  it('spreads by at most ±jitterRatio around the curve', () => {
    const options = { baseMs: 1000, maxMs: 60_000, jitterRatio: 0.25 };
    assert.equal(
      retryDelayMs(3, options, () => 0),
      3000,
    );
    assert.equal(
      retryDelayMs(3, options, () => 0.5),
      4000,
    );
    assert.equal(
      retryDelayMs(3, options, () => 0.999_999),
      5000,
    );
    for (let i = 0; i < 1000; i += 1) {
      const delay = retryDelayMs(2, options);
      assert.ok(delay >= 1500 && delay <= 2500, `delay ${delay} outside 2000 ms ± 25 %`);
    }
  });

  it('never exceeds maxMs even with jitter', () => {
    assert.equal(
      retryDelayMs(50, DEFAULT_BACKOFF, () => 0.999),
      DEFAULT_BACKOFF.maxMs,
    );
  });
});

describe('validateBackoff', () => {
  it('names the field at fault', () => {
    assert.throws(
      () => validateBackoff({ baseMs: -1, maxMs: 10, jitterRatio: 0 }),
      /backoff\.baseMs must be/,
    );
    assert.throws(
      () => validateBackoff({ baseMs: 1, maxMs: 10, jitterRatio: 2 }, 'x'),
      /x\.jitterRatio must be between 0 and 1/,
    );
  });
});
