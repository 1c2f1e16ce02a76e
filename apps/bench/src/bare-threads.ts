import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const ENTRY = new URL('./bare-burn-thread.js', import.meta.url);

/**
 * The CPU-bound ceiling of this machine, measured: one worker thread per core burning
 * `totalJobs` jobs of `iterations` rounds between them with no queue, no database and no
 * messages per job. Cores running side by side rarely each keep their single-core speed (shared
 * caches, frequency, a virtual machine's neighbours), so this is what a perfect queue could reach.
 *
 * @returns jobs per second
 */
export async function bareThreadsJobsPerSecond(iterations: number, totalJobs: number): Promise<number> {
  const threads = availableParallelism();
  const perThread = Math.ceil(totalJobs / threads);
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(ENTRY, { workerData: { iterations, jobs: perThread } });
          worker.once('message', () => resolve());
          worker.once('error', reject);
        }),
    ),
  );
  return ((perThread * threads) / (performance.now() - started)) * 1000;
}
