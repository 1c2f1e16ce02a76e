import { SYSTEM_IDS, type SystemId } from './bench-system.js';
import { NUDGE_ENGINE_CLAIM_BATCH } from './nudge/nudge-settings.js';

/** Names of the scenarios, in run order. */
export const SCENARIO_NAMES = [
  'drain',
  'enqueue',
  'latency',
  'idle-latency',
  'cpu',
  'pg-limit',
  'pooler',
  'finished-rows',
  'retention',
  'not-due-rows',
  'instances',
  'flights-3m',
  'idle',
  'queue-limits',
  'busy-key',
  'steady',
  'steps',
  'tracing',
] as const;

/** One of {@link SCENARIO_NAMES}. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** Sizes of the scenarios; each is a flag of the same name in kebab case. */
export interface BenchSizes {
  /** `--drain-jobs`: no-op jobs per drain. */
  readonly drainJobs: number;
  /** `--enqueue-single-jobs`: single enqueues, one awaited at a time. */
  readonly enqueueSingleJobs: number;
  /** `--enqueue-batch-jobs`: jobs enqueued in batches of {@link batchSize}. */
  readonly enqueueBatchJobs: number;
  /** `--batch-size`: jobs per batch of the batch enqueue. */
  readonly batchSize: number;
  /** `--latency-jobs`: sequential jobs of the latency scenario. */
  readonly latencyJobs: number;
  /** `--idle-latency-jobs`: sequential jobs of the idle-latency scenario, each after an idle gap. */
  readonly idleLatencyJobs: number;
  /** `--steps-jobs`: jobs of ten durable no-op steps per drain of the steps scenario. */
  readonly stepsJobs: number;
  /** `--cpu-jobs`: CPU-bound jobs per cpu measurement. */
  readonly cpuJobs: number;
  /** `--cpu-ms`: CPU time each CPU-bound job burns, in ms. */
  readonly cpuMs: number;
  /** `--engine-batch`: the claim batch size of nudge's engine, also tried by pg-limit. */
  readonly engineBatch: number;
  /** `--finished-rows`: `SUCCEEDED` rows already in the table for finished-rows. */
  readonly finishedRows: number;
  /** `--retention-jobs`: no-op jobs pushed through with retention on, then off, for retention. */
  readonly retentionJobs: number;
  /** `--not-due-rows`: rows scheduled for tomorrow, and as many waiting on a retry, for not-due-rows. */
  readonly notDueRows: number;
  /** `--max-instances`: the instances scenario runs 1 … this many servers. */
  readonly maxInstances: number;
  /** `--idle-ms`: the window each system is left idle in for the idle scenario, in ms. */
  readonly idleMs: number;
  /**
   * `--idle-settle-ms`: how long each system runs idle before the idle scenario's window opens, in
   * ms: long enough for start-up work to end and for a safety poll that backs off when idle
   * (nudge's doubles from 1 s up to `NUDGE_IDLE_POLL_MAX_MS`, 30 s by default) to reach its
   * steady interval.
   */
  readonly idleSettleMs: number;
  /** `--steady-window-ms`: the measured window of each steady run, in ms. */
  readonly steadyWindowMs: number;
  /** `--steady-warm-up-ms`: arrivals before each steady run's window opens, in ms. */
  readonly steadyWarmUpMs: number;
  /** `--repeat`: runs per measurement; the table shows the median. */
  readonly repeat: number;
}

/** Everything the command line sets. */
export interface BenchOptions extends BenchSizes {
  readonly quick: boolean;
  /** `--only`: scenarios to run, in run order. */
  readonly scenarios: readonly ScenarioName[];
  /** `--systems`: systems to run, in table order. */
  readonly systems: readonly SystemId[];
  /** `--steady-rates`: the arrival rates of the steady scenario, in jobs a second. */
  readonly steadyRates: readonly number[];
  /** `--out`: the file the report goes to; unset, only a full run writes one (see {@link reportPath}). */
  readonly out: string | undefined;
  readonly help: boolean;
}

/** Sizes of a full run (`pnpm bench`). */
export const FULL_SIZES: BenchSizes = {
  drainJobs: 20_000,
  enqueueSingleJobs: 1_000,
  enqueueBatchJobs: 10_000,
  batchSize: 1_000,
  latencyJobs: 1_000,
  idleLatencyJobs: 100,
  stepsJobs: 2_000,
  cpuJobs: 500,
  cpuMs: 20,
  engineBatch: NUDGE_ENGINE_CLAIM_BATCH,
  finishedRows: 10_000_000,
  retentionJobs: 1_000_000,
  notDueRows: 1_000_000,
  maxInstances: 3,
  idleMs: 120_000,
  idleSettleMs: 60_000,
  steadyWindowMs: 20_000,
  steadyWarmUpMs: 5_000,
  repeat: 3,
};

/** Default of `--steady-rates`, in jobs a second. */
export const STEADY_RATES: readonly number[] = [100, 500, 2000];

/** Sizes of `pnpm bench --quick`: everything in a few minutes. */
export const QUICK_SIZES: BenchSizes = {
  ...FULL_SIZES,
  drainJobs: 5_000,
  enqueueSingleJobs: 200,
  enqueueBatchJobs: 2_000,
  latencyJobs: 200,
  idleLatencyJobs: 20,
  stepsJobs: 1_000,
  cpuJobs: 200,
  finishedRows: 1_000_000,
  retentionJobs: 200_000,
  notDueRows: 100_000,
  idleMs: 20_000,
  idleSettleMs: 5_000,
  steadyWindowMs: 5_000,
  steadyWarmUpMs: 2_000,
  repeat: 1,
};

/** The usage text of `pnpm bench --help`. */
export const USAGE = `pnpm bench [--quick] [--only ${SCENARIO_NAMES.join(',')}] [--systems ${SYSTEM_IDS.join(',')}]
           [--drain-jobs N] [--enqueue-single-jobs N] [--enqueue-batch-jobs N] [--batch-size N]
           [--latency-jobs N] [--idle-latency-jobs N] [--steps-jobs N] [--cpu-jobs N] [--cpu-ms N]
           [--engine-batch N] [--finished-rows N] [--retention-jobs N] [--not-due-rows N] [--max-instances N]
           [--idle-ms N] [--idle-settle-ms N] [--steady-rates N,N,…] [--steady-window-ms N]
           [--steady-warm-up-ms N] [--repeat N] [--out FILE]

A full run (no --quick, --only or --systems) rewrites docs/benchmarks.md; other runs write a report
only with --out FILE, so a partial run never replaces the published results.`;

const SIZE_FLAGS = Object.keys(FULL_SIZES).map((key) => [
  `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  key as keyof BenchSizes,
]);

function listOf<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`${flag} takes names from ${allowed.join(', ')} (got "${raw}")`);
  }
  return allowed.filter((name) => names.includes(name));
}

/** `100,500,2000` as numbers. @throws Error naming `flag` when one is not a whole number ≥ 1 */
function wholeNumbers(flag: string, raw: string): number[] {
  const numbers = raw.split(',').map((part) => Number(part.trim().replace(/_/g, '')));
  if (numbers.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${flag} takes whole numbers >= 1, separated by commas (got "${raw}")`);
  return numbers;
}

/**
 * Parses the bench's arguments (`process.argv.slice(2)`); `--flag value` and `--flag=value` both
 * work, and size flags override `--quick` whatever their order.
 * @throws Error naming the flag when an argument is unknown or a value is invalid
 */
export function parseCliOptions(argv: readonly string[]): BenchOptions {
  const args = argv.flatMap((arg) =>
    arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg],
  );
  const quick = args.includes('--quick');
  const sizes: Record<string, number> = { ...(quick ? QUICK_SIZES : FULL_SIZES) };
  let scenarios: ScenarioName[] = [...SCENARIO_NAMES];
  let systems: SystemId[] = [...SYSTEM_IDS];
  let steadyRates: readonly number[] = STEADY_RATES;
  let out: string | undefined;
  let help = false;
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i] ?? '';
    if (flag === '--quick') continue;
    if (flag === '--help' || flag === '-h') {
      help = true;
      continue;
    }
    const key = SIZE_FLAGS.find(([name]) => name === flag)?.[1];
    if (!key && !['--only', '--systems', '--out', '--steady-rates'].includes(flag))
      throw new Error(`unknown argument "${flag}" (see --help)`);
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value (see --help)`);
    i += 1;
    if (flag === '--only') scenarios = listOf(flag, value, SCENARIO_NAMES);
    else if (flag === '--systems') systems = listOf(flag, value, SYSTEM_IDS);
    else if (flag === '--out') out = value;
    else if (flag === '--steady-rates') steadyRates = wholeNumbers(flag, value);
    else if (key) {
      const number = Number(value.replace(/_/g, ''));
      if (!Number.isInteger(number) || number < 1)
        throw new Error(`${flag} must be a whole number >= 1 (got "${value}")`);
      sizes[key] = number;
    }
  }
  return { ...(sizes as unknown as BenchSizes), quick, scenarios, systems, steadyRates, out, help };
}

/**
 * Where a run's report goes: `--out` when given, else `docPath` for a full run (every scenario and
 * system at full sizes), else nowhere (`undefined`): a quick or narrowed run must not replace the
 * published results.
 */
export function reportPath(options: BenchOptions, docPath: string): string | undefined {
  if (options.out !== undefined) return options.out;
  const full =
    !options.quick &&
    options.scenarios.length === SCENARIO_NAMES.length &&
    options.systems.length === SYSTEM_IDS.length;
  return full ? docPath : undefined;
}
