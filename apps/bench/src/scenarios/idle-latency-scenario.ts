import { formatNumber } from '../format-number.js';
import type { ResultRow } from '../result-row.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import { latencyPercentiles } from './latency-percentiles.js';
import type { Scenario } from './scenario.js';
import { measureSequentialStarts, sequentialStartNotes } from './sequential-starts.js';
import { uniformGapsMs, type GapRangeMs } from './uniform-gaps.js';
import { withSystem } from './with-system.js';

/** The idle time between one job's start and the next enqueue, in ms (uniform). */
export const IDLE_GAP_RANGE_MS: GapRangeMs = { minMs: 20, maxMs: 520 };

/** Seed of the gaps: every system waits through the same sequence. */
const GAP_SEED = 19;

/** What one system measured: its p50 and p99 as two results. */
interface IdleLatency {
  readonly p50: SystemResult;
  readonly p99: SystemResult;
}

/**
 * idle-latency: one job at a time with the service idle between jobs, as a quiet service sees its
 * jobs. Where the latency scenario enqueues right after a start (a polling worker has just polled,
 * an engine's loops are warm), here each enqueue comes 20–520 ms after the previous start, so a
 * worker that backs off when idle, or polls on a timer, shows what that costs the first job.
 */
export const idleLatencyScenario: Scenario = {
  name: 'idle-latency',
  summary: `one job at a time with the service idle ${IDLE_GAP_RANGE_MS.minMs}–${IDLE_GAP_RANGE_MS.maxMs} ms (uniform, the same seeded gaps for every system) between one job’s start and the next enqueue: enqueue call → handler start, p50 and p99; each system’s own single enqueue (nudge: POST /jobs)`,
  run: async (context) => {
    const jobs = context.options.idleLatencyJobs;
    const measured: IdleLatency[] = [];
    for (const spec of context.systems) {
      await withSystem(spec, context.systemContext, async (system) => {
        const starts = await measureSequentialStarts(system, context.listener, {
          jobs,
          enqueue: (payload) => system.enqueueOne('latency', payload),
          nextGapMs: uniformGapsMs(IDLE_GAP_RANGE_MS, GAP_SEED),
        });
        const { count, p50Ms, p99Ms } = latencyPercentiles(starts.samplesMs);
        context.log(
          `idle-latency ${spec.label}: p50 ${formatNumber(p50Ms)} ms, p99 ${formatNumber(p99Ms)} ms over ${count} jobs`,
        );
        const notes = sequentialStartNotes(starts);
        const common = {
          id: spec.id,
          label: spec.label,
          lost: starts.lost,
          duplicate: starts.duplicate,
          ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
        };
        measured.push({ p50: { ...common, values: [p50Ms] }, p99: { ...common, values: [p99Ms] } });
      });
    }
    const scenario = `idle-latency ${jobs.toLocaleString('en-US')} jobs, ${IDLE_GAP_RANGE_MS.minMs}–${IDLE_GAP_RANGE_MS.maxMs} ms apart`;
    const rows: ResultRow[] = [
      ...comparisonRows(
        scenario,
        'enqueue→start ms p50 (lower is better)',
        measured.map((m) => m.p50),
        formatNumber,
      ),
      ...comparisonRows(
        scenario,
        'enqueue→start ms p99 (lower is better)',
        measured.map((m) => m.p99),
        formatNumber,
      ),
    ];
    return rows;
  },
};
