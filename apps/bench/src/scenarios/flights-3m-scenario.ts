import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { measureCpuCapacity, measureFlights3m } from '@nudge/harness';
import { formatNumber, formatRatio } from '../format-number.js';
import type { ResultRow } from '../result-row.js';
import type { Scenario } from './scenario.js';

/** Polls of the measuring producer, in ms: short, so the wait after the last job is not the figure. */
const POLL_INTERVAL_MS = 10;

/**
 * The flights demo at 3 million rows: the delay report over `flights-3m.parquet` computed in one
 * thread (no queue), then fanned out as one CPU-bound job per row group over a nudge server's
 * worker threads with a final merge job, from the first insert to the merged report. nudge only.
 */
export const flights3mScenario: Scenario = {
  name: 'flights-3m',
  summary:
    'the flights-3m delay report in one thread against fanned out as cpu jobs (one per row group) plus a merge job over a nudge server (SQLite), wall time; and what running cores side by side allows on this machine',
  run: async (context) => {
    const threads = availableParallelism();
    const timedRuns = Math.max(1, context.options.repeat);
    const capacity = await measureCpuCapacity(threads);
    context.log(
      `flights-3m: ${threads} native CPU tasks side by side ran ${capacity.toFixed(2)}× as fast as one`,
    );
    const m = await measureFlights3m({
      databaseUrl: `sqlite:${join(context.systemContext.tmpDir, 'flights-3m.db')}`,
      threads,
      pollIntervalMs: POLL_INTERVAL_MS,
      timedRuns,
      warmUpRuns: context.options.quick ? 1 : 2,
    });
    context.log(
      `flights-3m: one thread ${formatNumber(m.singleThreadWallMs)} ms, queued ${formatNumber(m.queuedWallMs)} ms (${m.speedup.toFixed(2)}×), same report: ${m.sameReport ? 'yes' : 'NO'}`,
    );
    const scenario = `flights-3m report, ${m.parts} parts + 1 merge`;
    const row = (system: string, metric: string, value: string, ratio = '', note?: string): ResultRow => ({
      scenario,
      system,
      metric,
      value,
      ratio,
      lost: undefined,
      duplicate: undefined,
      runs: timedRuns,
      ...(note === undefined ? {} : { note }),
    });
    return [
      row('one thread, no queue', 'wall ms (lower is better)', formatNumber(m.singleThreadWallMs)),
      row(
        `nudge (SQLite), NUDGE_THREADS=${threads}`,
        'wall ms, first insert to merged report (lower is better)',
        formatNumber(m.queuedWallMs),
        `${formatRatio(m.singleThreadWallMs, m.queuedWallMs)} faster`,
        m.sameReport ? undefined : 'the reports differ',
      ),
      row(
        `${threads} native CPU tasks side by side`,
        'speed against one (the most any speedup can be here)',
        `${capacity.toFixed(2)}×`,
      ),
    ];
  },
};
