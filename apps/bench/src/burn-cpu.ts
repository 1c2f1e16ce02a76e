/**
 * Spins the CPU for `iterations` rounds of a xorshift32 step (Marsaglia, "Xorshift RNGs", 2003):
 * no memory traffic and no allocation, so its cost is the same in a worker thread, a child process
 * or this one. Returns the final state so the loop cannot be optimized away.
 */
export function burnCpu(iterations: number): number {
  let state = 0x2545f491;
  for (let i = 0; i < iterations; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
  }
  return state;
}
