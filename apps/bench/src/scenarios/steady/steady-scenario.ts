import type { BenchPayload } from '../../bench-job.js';
import type { RunningSystem, SystemSpec } from '../../bench-system.js';
import { formatNumber } from '../../format-number.js';
import type { RunningNudge } from '../../nudge/nudge-system.js';
import type { ResultRow } from '../../result-row.js';
import type { Scenario, ScenarioContext } from '../scenario.js';
import { withSystem } from '../with-system.js';
import { measureSteady, type SteadyRun } from './measure-steady.js';

/** How far behind its timetable the producer may fall, in ms, before a run's row says so. */
const PRODUCER_LAG_NOTE_MS = 50;

/** One way of running a system in the steady scenario: the system and its enqueue path. */
interface SteadyVariant {
  readonly label: string;
  readonly spec: SystemSpec;
  readonly enqueue: (system: RunningSystem, payload: BenchPayload) => Promise<void>;
}

/** Every selected system through its own single enqueue; nudge on PostgreSQL through three paths. */
function steadyVariants(systems: readonly SystemSpec[]): SteadyVariant[] {
  return systems
    .filter((spec) => spec.id !== 'nudge-sqlite')
    .flatMap((spec): SteadyVariant[] => {
      const own: SteadyVariant = {
        label: spec.id === 'nudge' ? `${spec.label} POST /jobs` : spec.label,
        spec,
        enqueue: (system, payload) => system.enqueueOne('io', payload),
      };
      if (spec.id !== 'nudge') return [own];
      const client = (wake: boolean): SteadyVariant => ({
        label: `${spec.label} @nudge/client enqueue into a pg.Pool${wake ? ' + nudge()' : ', woken by LISTEN'}`,
        spec,
        enqueue: (system, payload) => (system as RunningNudge).enqueueOneClient('io', payload, wake),
      });
      return [own, client(false), client(true)];
    });
}

/** A whole count with thousands separators, such as `1,453`. */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `45 / 12 / 80 / 160`: CPU µs per job of the service, the producer, the database and the machine. */
function cpuCell(run: SteadyRun): string {
  const { serviceUs, producerUs, databaseUs, machineUs } = run.cpu;
  return [serviceUs, producerUs, databaseUs, machineUs]
    .map((us) => (Number.isNaN(us) ? '—' : formatNumber(us)))
    .join(' / ');
}

/** What qualifies a run: failed enqueues, a late producer, jobs that never started or finished. */
function notesOf(run: SteadyRun): string[] {
  return [
    ...(run.failures > 0 ? [`${run.failures} enqueue(s) failed: ${run.firstError ?? ''}`] : []),
    ...(run.enqueuingAtEnd > 0
      ? [`${count(run.enqueuingAtEnd)} of the backlog at the end were enqueue calls not yet returned`]
      : []),
    ...(run.producerLagMs > PRODUCER_LAG_NOTE_MS
      ? [`the producer fell up to ${formatNumber(run.producerLagMs)} ms behind its timetable`]
      : []),
    ...(run.latency.count < run.windowJobs
      ? [`${run.windowJobs - run.latency.count} of the window's jobs never started`]
      : []),
    ...(run.confirmed ? [] : ['storage did not confirm every job']),
  ];
}

/** The three rows of one run: kept up, latency, CPU. */
function rowsOf(scenario: string, label: string, run: SteadyRun): ResultRow[] {
  const common = { scenario, system: label, ratio: '', lost: run.lost, duplicate: run.duplicate, runs: 1 };
  const notes = notesOf(run);
  return [
    {
      ...common,
      metric: 'kept up (backlog at the end / largest, jobs)',
      value: `${run.keptUp ? 'yes' : 'no'} (${count(run.backlog.atEnd)} / ${count(run.backlog.max)})`,
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    },
    {
      ...common,
      metric: 'enqueue→start ms p50 / p99 (lower is better)',
      value: `${formatNumber(run.latency.p50Ms)} / ${formatNumber(run.latency.p99Ms)}`,
    },
    {
      ...common,
      metric: 'CPU µs per job: service / producer / database server / whole machine',
      value: cpuCell(run),
    },
  ];
}

/** Runs every rate on one started variant, one after another; the rows of each rate by rate. */
async function runVariant(
  context: ScenarioContext,
  variant: SteadyVariant,
): Promise<Map<number, ResultRow[]>> {
  const { steadyRates, steadyWarmUpMs, steadyWindowMs } = context.options;
  return withSystem(variant.spec, context.systemContext, async (system) => {
    const rows = new Map<number, ResultRow[]>();
    for (const ratePerSecond of steadyRates) {
      const run = await measureSteady(system, context.listener, {
        ratePerSecond,
        warmUpMs: steadyWarmUpMs,
        windowMs: steadyWindowMs,
        enqueue: (payload) => variant.enqueue(system, payload),
        adminUrl: context.systemContext.postgres.adminUrl,
      });
      context.log(
        `steady ${count(ratePerSecond)}/s ${variant.label}: kept up ${run.keptUp ? 'yes' : 'no'} (backlog ${run.backlog.atEnd} at the end, of which ${run.enqueuingAtEnd} still enqueuing, ${run.backlog.max} at most), p50 ${formatNumber(run.latency.p50Ms)} ms, p99 ${formatNumber(run.latency.p99Ms)} ms, CPU µs/job ${cpuCell(run)}`,
      );
      const scenario = `steady ${count(ratePerSecond)} jobs/s, ${steadyWindowMs / 1000} s window`;
      rows.set(ratePerSecond, rowsOf(scenario, variant.label, run));
    }
    return rows;
  });
}

/**
 * steady: single jobs arriving at fixed rates, open loop (each enqueue is called on a fixed
 * timetable whether or not the previous one has returned), handlers of 1 ms of async I/O. Over a
 * measured window after a warm-up it reports whether each system kept up, enqueue → start
 * latency, and CPU per job by process group from `/proc`.
 */
export const steadyScenario: Scenario = {
  name: 'steady',
  summary:
    'single jobs arriving open loop at fixed rates (--steady-rates), handlers of 1 ms async I/O, each system through its own single enqueue (nudge also through @nudge/client into a pg.Pool, woken by LISTEN and by nudge()); over a measured window after a warm-up: kept up (backlog at the end ≤ one second of arrivals), backlog at the end and largest, enqueue call → handler start p50/p99, and CPU per job of the service, the producer (the bench process), the database server (PostgreSQL backends of the system’s database, or redis-server) and the whole machine from /proc',
  run: async (context) => {
    // Rate first, then system, as a reader compares systems at one rate.
    const byRate = new Map<number, ResultRow[]>(context.options.steadyRates.map((rate) => [rate, []]));
    for (const variant of steadyVariants(context.systems)) {
      for (const [rate, rows] of await runVariant(context, variant)) byRate.get(rate)?.push(...rows);
    }
    return [...byRate.values()].flat();
  },
};
