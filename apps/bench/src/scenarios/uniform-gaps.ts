/** A range of gaps, in ms, `minMs ≤ gap < maxMs`. */
export interface GapRangeMs {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator, public domain): a small seeded source of numbers
 * in [0, 1), so every system of a run waits through the same sequence of gaps.
 */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Gaps drawn uniformly from `range`, in ms: each call of the returned function is the next gap.
 * The same `seed` gives the same sequence.
 * @throws RangeError when `minMs` is negative or `maxMs` is not above it, naming the field
 * @example
 * ```ts
 * const nextGapMs = uniformGapsMs({ minMs: 20, maxMs: 520 }, 1);
 * await sleep(nextGapMs()); // somewhere from 20 to 520 ms
 * ```
 */
export function uniformGapsMs(range: GapRangeMs, seed: number): () => number {
  const { minMs, maxMs } = range;
  if (!Number.isFinite(minMs) || minMs < 0) {
    throw new RangeError(`minMs must be a finite number >= 0 (got ${minMs})`);
  }
  if (!Number.isFinite(maxMs) || maxMs <= minMs) {
    throw new RangeError(`maxMs must be a finite number above minMs ${minMs} (got ${maxMs})`);
  }
  const random = mulberry32(seed);
  return () => minMs + random() * (maxMs - minMs);
}
