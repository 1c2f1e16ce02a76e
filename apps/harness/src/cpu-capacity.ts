import { pbkdf2 } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { nearestRank } from '@nudge/core';

const pbkdf2Async = promisify(pbkdf2);

/** PBKDF2-SHA512 rounds of one probe task: about 0.1 to 0.3 s of one core. */
const ROUNDS = 150_000;

async function timeMs(work: () => Promise<unknown>): Promise<number> {
  const startMs = performance.now();
  await work();
  return performance.now() - startMs;
}

/**
 * How many cores' worth of CPU this machine gives `tasks` tasks at once right now: the median,
 * over `samples` tries, of `tasks × (time of one task alone) / (time of all tasks at once)`.
 * The tasks are native PBKDF2 on libuv's thread pool (no JavaScript, no garbage collection),
 * so the figure is the machine's, not nudge's: on a machine with two idle cores it is close to
 * 2, on a busy or throttled virtual machine lower. It puts the demo's speedups in context.
 *
 * @param tasks - tasks run at once, at most libuv's pool size (4 unless `UV_THREADPOOL_SIZE`) @defaultValue 2
 * @param samples - tries @defaultValue 3
 */
export async function measureCpuCapacity(tasks = 2, samples = 3): Promise<number> {
  const task = (): Promise<Buffer> => pbkdf2Async('nudge', 'salt', ROUNDS, 64, 'sha512');
  await task();
  const ratios: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const aloneMs = await timeMs(task);
    const togetherMs = await timeMs(() => Promise.all(Array.from({ length: tasks }, task)));
    ratios.push((tasks * aloneMs) / togetherMs);
  }
  return nearestRank(Float64Array.from(ratios).sort(), 50);
}
