import type { BenchPayload } from '../bench-job.js';
import type { RunningSystem } from '../bench-system.js';
import { formatNumber } from '../format-number.js';
import type { RunningNudge } from '../nudge/nudge-system.js';
import type { ReportListener } from '../report/report-listener.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import { latencyPercentiles } from './latency-percentiles.js';
import type { Scenario } from './scenario.js';
import { measureSequentialStarts, sequentialStartNotes } from './sequential-starts.js';
import { withSystem } from './with-system.js';

/**
 * Enqueues `jobs` `latency` jobs one after another, each once the previous one has started, and
 * measures enqueue call → handler start on this process's clock.
 */
async function sequentialLatency(
  system: RunningSystem,
  listener: ReportListener,
  jobs: number,
  enqueue: (payload: BenchPayload) => Promise<void>,
): Promise<Omit<SystemResult, 'id' | 'label'>> {
  const starts = await measureSequentialStarts(system, listener, { jobs, enqueue });
  const { p50Ms, p95Ms, p99Ms } = latencyPercentiles(starts.samplesMs);
  const notes = sequentialStartNotes(starts);
  return {
    values: [p50Ms],
    display: `${formatNumber(p50Ms)} / ${formatNumber(p95Ms)} / ${formatNumber(p99Ms)}`,
    lost: starts.lost,
    duplicate: starts.duplicate,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/** Latency: sequential jobs, each enqueued after the previous one started. */
export const latencyScenario: Scenario = {
  name: 'latency',
  summary:
    'sequential jobs, each enqueued once the previous one started: enqueue call → handler start; nudge through POST /jobs, through a plain INSERT + POST /nudge, and (PostgreSQL) a plain INSERT woken by LISTEN/NOTIFY',
  run: async (context) => {
    const jobs = context.options.latencyJobs;
    const results: SystemResult[] = [];
    for (const spec of context.systems) {
      await withSystem(spec, context.systemContext, async (system) => {
        const viaApi = await sequentialLatency(system, context.listener, jobs, (payload) =>
          system.enqueueOne('latency', payload),
        );
        context.log(`latency ${spec.label}: p50/p95/p99 ${viaApi.display ?? ''} ms`);
        if (!spec.id.startsWith('nudge')) {
          results.push({ id: spec.id, label: spec.label, ...viaApi });
          return;
        }
        results.push({ id: spec.id, label: `${spec.label} POST /jobs`, ...viaApi });
        const nudge = system as RunningNudge;
        const viaInsert = await sequentialLatency(system, context.listener, jobs, (payload) =>
          nudge.enqueueOneOutbox('latency', payload),
        );
        context.log(`latency ${spec.label} INSERT + POST /nudge: p50/p95/p99 ${viaInsert.display ?? ''} ms`);
        results.push({ id: `${spec.id}-outbox`, label: `${spec.label} INSERT + POST /nudge`, ...viaInsert });
        if (spec.id !== 'nudge') return;
        // PostgreSQL only: the insert trigger's NOTIFY wakes the server, no POST /nudge.
        const viaListen = await sequentialLatency(system, context.listener, jobs, (payload) =>
          nudge.enqueueOneOutbox('latency', payload, false),
        );
        context.log(`latency ${spec.label} INSERT alone (LISTEN): p50/p95/p99 ${viaListen.display ?? ''} ms`);
        results.push({ id: `${spec.id}-listen`, label: `${spec.label} INSERT alone (LISTEN)`, ...viaListen });
      });
    }
    return comparisonRows(
      `latency ${formatNumber(jobs)} sequential`,
      'enqueue→start ms p50 / p95 / p99 (lower is better; ratio on p50)',
      results,
      formatNumber,
    );
  },
};
