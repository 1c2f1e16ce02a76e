import { burnCpu } from './burn-cpu.js';
import { sendReport } from './report/report-sender.js';

/**
 * The job kinds every system runs: `noop` reports and returns (drain, enqueue), `latency`
 * reports at its start (latency), `burn` spins the CPU then reports (cpu).
 */
export const BENCH_KINDS = ['noop', 'latency', 'burn'] as const;

/** One of {@link BENCH_KINDS}. */
export type BenchKind = (typeof BENCH_KINDS)[number];

/** The payload of every bench job. */
export interface BenchPayload {
  /** The measurement the job belongs to ({@link RunTally.run}). */
  readonly run: string;
  /** The job's number within the measurement, from 0: the key of the exactly-once count. */
  readonly seq: number;
  /** `burn` only: loop rounds of {@link burnCpu}. */
  readonly iterations?: number;
}

/**
 * The handler body shared by every system, so that all of them do the same work: one UDP report
 * per run to the bench client, at the start of `noop` and `latency` jobs and at the end of `burn`;
 * resolves once the report has left.
 */
export async function runBenchJob(kind: string, payload: BenchPayload): Promise<void> {
  if (kind === 'burn') burnCpu(payload.iterations ?? 0);
  await sendReport({ run: payload.run, seq: payload.seq });
}
