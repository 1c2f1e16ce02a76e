import { setTimeout as sleep } from 'node:timers/promises';
import { burnCpu } from './burn-cpu.js';
import { sendReport } from './report/report-sender.js';

/**
 * The job kinds every system runs: `noop` reports and returns (drain, enqueue), `latency`
 * reports at its start (latency), `burn` spins the CPU then reports (cpu), `io` reports at its
 * start then waits {@link IO_WAIT_MS} of async I/O (steady).
 */
export const BENCH_KINDS = ['noop', 'latency', 'burn', 'io'] as const;

/** What an `io` job waits after reporting, in ms: a timer, as a short request to another service. */
export const IO_WAIT_MS = 1;

/** One of {@link BENCH_KINDS}. */
export type BenchKind = (typeof BENCH_KINDS)[number];

/**
 * Kinds only nudge's handler module has, for scenarios that run nudge alone: `steps` runs
 * {@link BENCH_STEPS} durable no-op steps (`ctx.step`), then reports. The peers' workers never
 * see them.
 */
export const NUDGE_ONLY_KINDS = ['steps'] as const;

/** A kind nudge runs: one of {@link BENCH_KINDS} or {@link NUDGE_ONLY_KINDS}. */
export type NudgeKind = BenchKind | (typeof NUDGE_ONLY_KINDS)[number];

/** Durable steps of one `steps` job (`ctx.step('s0', …)` … `ctx.step('s9', …)`). */
export const BENCH_STEPS = 10;

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
 * per run to the bench client, at the start of `noop`, `latency` and `io` jobs and at the end of `burn`;
 * resolves once the report has left (`io`: and its wait is over).
 */
export async function runBenchJob(kind: string, payload: BenchPayload): Promise<void> {
  if (kind === 'burn') burnCpu(payload.iterations ?? 0);
  await sendReport({ run: payload.run, seq: payload.seq });
  if (kind === 'io') await sleep(IO_WAIT_MS);
}
