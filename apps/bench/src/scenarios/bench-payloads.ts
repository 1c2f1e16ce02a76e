import type { BenchPayload } from '../bench-job.js';

/** Payloads `from … from + count − 1` of measurement `run`, with `iterations` for `burn` jobs. */
export function benchPayloads(run: string, from: number, count: number, iterations?: number): BenchPayload[] {
  return Array.from({ length: count }, (_, i) =>
    iterations === undefined ? { run, seq: from + i } : { run, seq: from + i, iterations },
  );
}
