import { performance } from 'node:perf_hooks';
import type { BenchPayload } from '../bench-job.js';
import type { RunningSystem } from '../bench-system.js';
import type { RunningNudge } from '../nudge/nudge-system.js';
import { formatNumber } from '../format-number.js';
import type { ReportListener } from '../report/report-listener.js';
import type { ResultRow } from '../result-row.js';
import { benchPayloads } from './bench-payloads.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import type { Scenario } from './scenario.js';
import { waitUntilFinished } from './wait-until-finished.js';
import { withSystem } from './with-system.js';

interface EnqueueRun {
  readonly perSecond: number;
  readonly lost: number;
  readonly duplicate: number;
  readonly confirmed: boolean;
}

/**
 * Times `enqueue` over `jobs` jobs of one measurement, then waits for every job to run and be
 * completed (the workers run throughout, as they would in production).
 */
async function timedEnqueue(
  system: RunningSystem,
  listener: ReportListener,
  jobs: number,
  enqueue: (run: string) => Promise<void>,
): Promise<EnqueueRun> {
  const tally = listener.track(jobs);
  try {
    const start = performance.now();
    await enqueue(tally.run);
    const elapsedMs = performance.now() - start;
    const timeoutMs = 120_000 + jobs * 50;
    await tally.waitFor(undefined, timeoutMs);
    const confirmed = await waitUntilFinished(system, timeoutMs);
    return { perSecond: (jobs / elapsedMs) * 1000, ...tally.exactlyOnce(), confirmed };
  } finally {
    tally.close();
  }
}

/** Times `jobs` single enqueues, each awaited before the next, through `enqueueOne`. */
function timedSingles(
  system: RunningSystem,
  listener: ReportListener,
  jobs: number,
  enqueueOne: (payload: BenchPayload) => Promise<void>,
): Promise<EnqueueRun> {
  return timedEnqueue(system, listener, jobs, async (run) => {
    for (const payload of benchPayloads(run, 0, jobs)) await enqueueOne(payload);
  });
}

function summarize(
  spec: { readonly id: string; readonly label: string },
  runs: readonly EnqueueRun[],
): SystemResult {
  const unconfirmed = runs.filter((run) => !run.confirmed).length;
  return {
    id: spec.id,
    label: spec.label,
    values: runs.map((run) => run.perSecond),
    lost: runs.reduce((sum, run) => sum + run.lost, 0),
    duplicate: runs.reduce((sum, run) => sum + run.duplicate, 0),
    ...(unconfirmed > 0 ? { note: `storage did not confirm ${unconfirmed} run(s)` } : {}),
  };
}

/**
 * Enqueue: one producer awaiting each single enqueue (nudge on PostgreSQL: `POST /jobs`, and
 * `@nudge/client`'s transactional `enqueue` into a `pg.Pool`, woken by `LISTEN`), then batches (nudge:
 * `@nudge/client`'s `enqueueMany`, each batch validated and written in one transaction, plus
 * `POST /nudge` per batch), with the workers running.
 */
export const enqueueScenario: Scenario = {
  name: 'enqueue',
  summary:
    'one producer awaiting each single enqueue (nudge: POST /jobs, and on PostgreSQL also @nudge/client enqueue into a pg.Pool); batches in one transaction each (nudge: @nudge/client enqueueMany, validated, + POST /nudge); workers running',
  run: async (context) => {
    const { enqueueSingleJobs, enqueueBatchJobs, batchSize, repeat } = context.options;
    const single: SystemResult[] = [];
    const batch: SystemResult[] = [];
    for (const spec of context.systems) {
      await withSystem(spec, context.systemContext, async (system) => {
        const singles: EnqueueRun[] = [];
        const clientSingles: EnqueueRun[] = [];
        const batches: EnqueueRun[] = [];
        for (let i = 0; i < repeat; i += 1) {
          singles.push(
            await timedSingles(system, context.listener, enqueueSingleJobs, (payload) =>
              system.enqueueOne('noop', payload),
            ),
          );
          if (spec.id === 'nudge')
            clientSingles.push(
              await timedSingles(system, context.listener, enqueueSingleJobs, (payload) =>
                (system as RunningNudge).enqueueOneClient('noop', payload, false),
              ),
            );
          batches.push(
            await timedEnqueue(system, context.listener, enqueueBatchJobs, async (run) => {
              for (let from = 0; from < enqueueBatchJobs; from += batchSize) {
                const count = Math.min(batchSize, enqueueBatchJobs - from);
                await system.enqueueBatch('noop', benchPayloads(run, from, count));
                await system.wake();
              }
            }),
          );
          const client = clientSingles.at(-1);
          context.log(
            `enqueue ${spec.label} #${i + 1}: ${formatNumber(singles.at(-1)?.perSecond ?? Number.NaN)} single/s${client ? ` (client into a pg.Pool ${formatNumber(client.perSecond)})` : ''}, ${formatNumber(batches.at(-1)?.perSecond ?? Number.NaN)} jobs/s in batches`,
          );
        }
        single.push(
          summarize(
            { id: spec.id, label: spec.id === 'nudge' ? `${spec.label} POST /jobs` : spec.label },
            singles,
          ),
        );
        if (clientSingles.length > 0)
          single.push(
            summarize(
              { id: 'nudge-client', label: `${spec.label} @nudge/client enqueue into a pg.Pool` },
              clientSingles,
            ),
          );
        batch.push(summarize(spec, batches));
      });
    }
    const rows: ResultRow[] = [
      ...comparisonRows(
        `enqueue ${formatNumber(enqueueSingleJobs)} single`,
        'enqueues/s, one awaited at a time (higher is better)',
        single,
        formatNumber,
      ),
      ...comparisonRows(
        `enqueue ${formatNumber(enqueueBatchJobs)} in batches of ${formatNumber(batchSize)}`,
        'jobs/s (higher is better)',
        batch,
        formatNumber,
      ),
    ];
    return rows;
  },
};
