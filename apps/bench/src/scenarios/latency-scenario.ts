import { performance } from 'node:perf_hooks';
import { nearestRank } from '@nudge/core';
import type { BenchPayload } from '../bench-job.js';
import type { RunningSystem } from '../bench-system.js';
import { formatNumber } from '../format-number.js';
import type { RunningNudge } from '../nudge/nudge-system.js';
import type { ReportListener } from '../report/report-listener.js';
import { benchPayloads } from './bench-payloads.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import type { Scenario } from './scenario.js';
import { waitUntilFinished } from './wait-until-finished.js';
import { withSystem } from './with-system.js';

/** Longest wait for one job to start, in ms. */
const START_TIMEOUT_MS = 30_000;

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
  const tally = listener.track(jobs);
  const samples: number[] = [];
  let missed = 0;
  try {
    for (const payload of benchPayloads(tally.run, 0, jobs)) {
      const start = performance.now();
      await enqueue(payload);
      if (await tally.waitFor(payload.seq, START_TIMEOUT_MS))
        samples.push(tally.firstAtMs(payload.seq) - start);
      else missed += 1;
    }
    const confirmed = await waitUntilFinished(system, 60_000);
    const sorted = samples.sort((a, b) => a - b);
    const percentile = (percent: number): number =>
      sorted.length > 0 ? nearestRank(sorted, percent) : Number.NaN;
    const p50 = percentile(50);
    const notes = [
      ...(missed > 0 ? [`${missed} job(s) did not start within ${START_TIMEOUT_MS} ms`] : []),
      ...(confirmed ? [] : ['storage did not confirm every job']),
    ];
    return {
      values: [p50],
      display: `${formatNumber(p50)} / ${formatNumber(percentile(95))} / ${formatNumber(percentile(99))}`,
      ...tally.exactlyOnce(),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    };
  } finally {
    tally.close();
  }
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
