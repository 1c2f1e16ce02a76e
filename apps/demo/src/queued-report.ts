import { performance } from 'node:perf_hooks';
import type { JobView, NudgeClient } from '@nudge/client';
import type { ArchiveResult } from './archive-json.js';
import { FLIGHTS_3M } from './dataset-files.js';
import { ALL_ORIGINS, type DelayReport } from './delay-report.js';
import type { ProgressCounts } from './job-progress.js';
import { ARCHIVE_KIND, MERGE_KIND, PART_KIND } from './job-kinds.js';
import { nudgeCommitted } from './nudge-committed.js';
import type { ProducerDatabase } from './producer-database.js';
import { watchRunningJobs } from './running-jobs.js';

/** Options of {@link runQueuedReport}. */
export interface QueuedReportOptions {
  /** Where the jobs are enqueued (the producer's own transactions). */
  readonly database: ProducerDatabase;
  /** The server's API: nudges and job states (its poll interval paces the waits). */
  readonly client: NudgeClient;
  /** The server's base URL, for the log line. */
  readonly nudgeUrl: string;
  /** Row groups of the file: one `flightDelayPart` job each. */
  readonly rowGroups: number;
  /** Longest wait for all jobs, in ms. */
  readonly timeoutMs: number;
  /** Routes listed per airport and for the report. @defaultValue 5 */
  readonly topRoutes?: number;
  /**
   * Archive the merged report with an `archiveReport` job; `outputDir` undefined keeps the
   * handler's default folder. Leave out to stop at the merged report.
   */
  readonly archive?: { readonly outputDir: string | undefined };
  /** Told what was enqueued, for the producer's log. */
  readonly log?: (line: string) => void;
  /**
   * Called whenever a job finishes or the count of running jobs changes (read every 100 ms),
   * with the counts and the number of jobs now expected.
   */
  readonly onProgress?: (counts: ProgressCounts, expectedJobs: number) => void;
}

/** What {@link runQueuedReport} did. */
export interface QueuedReportRun {
  /** The part jobs, by row group. */
  readonly partIds: readonly number[];
  /** The merge job, which depends on every part. */
  readonly mergeId: number;
  /** The archive job, which depends on the merge; undefined when none was asked for. */
  readonly archiveId: number | undefined;
  /** The merged report; undefined when a part or the merge did not succeed. */
  readonly report: DelayReport | undefined;
  /** What the archive job wrote, when one was asked for and succeeded. */
  readonly archive: ArchiveResult | undefined;
  /** The final view of every job, by ascending id. */
  readonly views: readonly JobView[];
  /** `performance.now()` just before the flow was inserted, in ms. */
  readonly enqueuedAtMs: number;
  /** `performance.now()` when the merged report was first seen, in ms; undefined without one. */
  readonly mergedAtMs: number | undefined;
}

type DemoJob = Parameters<ProducerDatabase['enqueueJobs']>[0][number];

/**
 * The flights-3m report as one flow of jobs: a `flightDelayPart` job per row group, then a
 * `flightDelayMerge` job that depends on every part (`{ index }` references into the same batch)
 * and reads their results in `ctx.dependencies`, then, when `archive` is given, an
 * `archiveReport` job that depends on the merge and writes its result.
 */
export function flights3mFlow(
  rowGroups: number,
  topRoutes: number,
  archive: QueuedReportOptions['archive'],
): DemoJob[] {
  const parts: DemoJob[] = Array.from({ length: rowGroups }, (_, rowGroup) => ({
    kind: PART_KIND,
    payload: { dataset: FLIGHTS_3M, rowGroup },
  }));
  const merge: DemoJob = {
    kind: MERGE_KIND,
    payload: { dataset: FLIGHTS_3M, origin: ALL_ORIGINS, topRoutes },
    dependsOn: parts.map((_, index) => ({ index })),
  };
  if (!archive) return [...parts, merge];
  const folder = archive.outputDir === undefined ? {} : { outputDir: archive.outputDir };
  const archiveJob: DemoJob = {
    kind: ARCHIVE_KIND,
    payload: { name: `delays-${FLIGHTS_3M}-${ALL_ORIGINS}`, ...folder },
    dependsOn: [{ index: rowGroups }],
  };
  return [...parts, merge, archiveJob];
}

/**
 * Runs the flights-3m report through the queue as one dependency flow ({@link flights3mFlow}),
 * enqueued in one transaction of the producer's, then nudges the server and waits for every job
 * to finish. The server starts the merge once the last part finished (and cancels it, and the
 * archive, when a part failed for good); nothing here counts finished parts. The waits share the
 * client's one poller.
 *
 * @throws Error when the server cannot be reached after the insert (the jobs are committed)
 * @throws WaitTimeoutError when the jobs do not all finish within `timeoutMs`
 */
export async function runQueuedReport(options: QueuedReportOptions): Promise<QueuedReportRun> {
  const { database, client, archive } = options;
  const enqueuedAtMs = performance.now();
  const ids = await database.enqueueJobs(flights3mFlow(options.rowGroups, options.topRoutes ?? 5, archive));
  const partIds = ids.slice(0, options.rowGroups);
  const mergeId = ids[options.rowGroups];
  if (mergeId === undefined) throw new Error('enqueueing the flights-3m flow returned no merge job id');
  const archiveId = archive ? ids[options.rowGroups + 1] : undefined;
  options.log?.(
    `Enqueued ${partIds.length} ${PART_KIND} jobs (one per row group of ${FLIGHTS_3M}), a ${MERGE_KIND} ` +
      `job depending on them${archive ? ` and an ${ARCHIVE_KIND} job depending on the merge` : ''} ` +
      `in one transaction; nudging ${options.nudgeUrl}`,
  );
  await nudgeCommitted(client, partIds.length);

  let done = 0;
  let failed = 0;
  let running = 0;
  let mergedAtMs: number | undefined;
  const report = () => options.onProgress?.({ done, running, failed }, ids.length);
  const stopWaiting = new AbortController();
  const deadline = Date.now() + options.timeoutMs;
  const waitFor = async (id: number): Promise<JobView> => {
    const view = await client.waitFor(id, {
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal: stopWaiting.signal,
    });
    if (id === mergeId && view.status === 'SUCCEEDED') mergedAtMs = performance.now();
    done++;
    if (view.status !== 'SUCCEEDED') failed++;
    report();
    return view;
  };
  const stopCounting = options.onProgress
    ? watchRunningJobs(client, 100, (count) => {
        running = count;
        report();
      })
    : () => undefined;
  let views: JobView[];
  try {
    views = await Promise.all(ids.map(waitFor));
  } finally {
    stopCounting();
    stopWaiting.abort();
  }
  const byId = new Map(views.map((view) => [view.id, view]));
  const merge = byId.get(mergeId);
  const archived = archiveId === undefined ? undefined : byId.get(archiveId);
  views.sort((a, b) => a.id - b.id);
  return {
    partIds,
    mergeId,
    archiveId,
    report: merge?.status === 'SUCCEEDED' ? (merge.result as unknown as DelayReport) : undefined,
    archive: archived?.status === 'SUCCEEDED' ? (archived.result as unknown as ArchiveResult) : undefined,
    views,
    enqueuedAtMs,
    mergedAtMs,
  };
}
