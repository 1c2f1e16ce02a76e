import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { uniformGapsMs } from './uniform-gaps.js';

describe('uniformGapsMs', () => {
  const range = { minMs: 20, maxMs: 520 };

  it('stays within the range and spreads over all of it', () => {
    const next = uniformGapsMs(range, 7);
    const gaps = Array.from({ length: 10_000 }, next);
    assert.ok(gaps.every((gap) => gap >= 20 && gap < 520));
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    assert.ok(Math.abs(mean - 270) < 10, `mean ${mean} ms`);
    // Each tenth of the range holds about a tenth of the draws.
    const tenths = new Array<number>(10).fill(0);
    for (const gap of gaps)
      tenths[Math.floor((gap - 20) / 50)] = (tenths[Math.floor((gap - 20) / 50)] ?? 0) + 1;
    assert.ok(
      tenths.every((n) => n > 850 && n < 1150),
      tenths.join(', '),
    );
  });

  it('repeats its sequence for the same seed and not for another', () => {
    const a = Array.from({ length: 5 }, uniformGapsMs(range, 1));
    const b = Array.from({ length: 5 }, uniformGapsMs(range, 1));
    const c = Array.from({ length: 5 }, uniformGapsMs(range, 2));
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it('names the field at fault', () => {
    assert.throws(() => uniformGapsMs({ minMs: -1, maxMs: 10 }, 1), /minMs must be/);
    assert.throws(() => uniformGapsMs({ minMs: 10, maxMs: 10 }, 1), /maxMs must be/);
    assert.throws(() => uniformGapsMs({ minMs: 0, maxMs: Number.NaN }, 1), /maxMs must be/);
  });
});
