// BullMQ's sandboxed processor file for CPU-bound jobs: it runs in a worker thread of the BullMQ
// worker process (`useWorkerThreads`), so a burn never blocks the worker's event loop.
import { runBenchJob, type BenchPayload } from '../bench-job.js';

/** Runs the shared bench body for one job. */
export default async function processBenchJob(job: { name: string; data: BenchPayload }): Promise<void> {
  await runBenchJob(job.name, job.data);
}
