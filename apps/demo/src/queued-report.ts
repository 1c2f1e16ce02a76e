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
  /** The server's base URL as the merge job should reach it (copied into its payload). */
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
  /** The merge job; undefined when a part did not succeed, so none was enqueued. */
  readonly mergeId: number | undefined;
  /** The merged report; undefined when a part or the merge did not succeed. */
  readonly report: DelayReport | undefined;
  /** What the archive job wrote, when one was asked for and succeeded. */
  readonly archive: ArchiveResult | undefined;
  /** The final view of every job, by ascending id. */
  readonly views: readonly JobView[];
  /** `performance.now()` just before the parts were inserted, in ms. */
  readonly enqueuedAtMs: number;
  /** `performance.now()` when the merged report was first seen, in ms; undefined without one. */
  readonly mergedAtMs: number | undefined;
}

/**
 * Runs the flights-3m report through the queue: enqueues one `flightDelayPart` job per row group in
 * one transaction and nudges the server; once every part has succeeded, enqueues one
 * `flightDelayMerge` job that names the parts by id; once that succeeds, optionally archives the
 * report. Nothing after a failed job is enqueued. The waits share the client's one poller.
 *
 * @throws Error when the server cannot be reached after the insert (the jobs are committed)
 * @throws WaitTimeoutError when the jobs do not all finish within `timeoutMs`
 */
export async function runQueuedReport(options: QueuedReportOptions): Promise<QueuedReportRun> {
  const { database, client, archive } = options;
  const enqueuedAtMs = performance.now();
  const partIds = await database.enqueueJobs(
    Array.from({ length: options.rowGroups }, (_, rowGroup) => ({
      kind: PART_KIND,
      payload: { dataset: FLIGHTS_3M, rowGroup },
    })),
  );
  options.log?.(
    `Enqueued ${partIds.length} ${PART_KIND} jobs (one per row group of ${FLIGHTS_3M}) in one ` +
      `transaction; nudging ${options.nudgeUrl}`,
  );
  await nudgeCommitted(client, partIds.length);

  const followUps = 1 + (archive ? 1 : 0);
  let expected = partIds.length + followUps;
  let done = 0;
  let failed = 0;
  let running = 0;
  const views: JobView[] = [];
  const report = () => options.onProgress?.({ done, running, failed }, expected);
  const finish = (view: JobView): JobView => {
    views.push(view);
    done++;
    if (view.status !== 'SUCCEEDED') failed++;
    report();
    return view;
  };
  const stopWaiting = new AbortController();
  const deadline = Date.now() + options.timeoutMs;
  const waitFor = async (id: number): Promise<JobView> =>
    finish(
      await client.waitFor(id, { timeoutMs: Math.max(1, deadline - Date.now()), signal: stopWaiting.signal }),
    );
  const enqueue = async (job: Parameters<ProducerDatabase['enqueueJobs']>[0][number]): Promise<number> => {
    const [id] = await database.enqueueJobs([job]);
    if (id === undefined) throw new Error(`enqueueing a ${job.kind} job returned no id`);
    await nudgeCommitted(client, 1);
    return id;
  };
  const stopCounting = options.onProgress
    ? watchRunningJobs(client, 100, (count) => {
        running = count;
        report();
      })
    : () => undefined;

  let mergeId: number | undefined;
  let merged: DelayReport | undefined;
  let archived: ArchiveResult | undefined;
  let mergedAtMs: number | undefined;
  try {
    const parts = await Promise.all(partIds.map(waitFor));
    if (parts.some((view) => view.status !== 'SUCCEEDED')) {
      expected -= followUps;
      report();
    } else {
      const payload = {
        dataset: FLIGHTS_3M,
        parts: partIds,
        nudgeUrl: options.nudgeUrl,
        origin: ALL_ORIGINS,
        topRoutes: options.topRoutes ?? 5,
      } as const;
      mergeId = await enqueue({ kind: MERGE_KIND, payload });
      const merge = await waitFor(mergeId);
      if (merge.status === 'SUCCEEDED') {
        merged = merge.result as unknown as DelayReport;
        mergedAtMs = performance.now();
        if (archive) {
          const name = `delays-${merged.dataset}-${merged.origin}`;
          const folder = archive.outputDir === undefined ? {} : { outputDir: archive.outputDir };
          const archiveView = await waitFor(
            await enqueue({ kind: ARCHIVE_KIND, payload: { name, report: merged, ...folder } }),
          );
          if (archiveView.status === 'SUCCEEDED') archived = archiveView.result as unknown as ArchiveResult;
        }
      } else if (archive) {
        expected--;
        report();
      }
    }
  } finally {
    stopCounting();
    stopWaiting.abort();
  }
  views.sort((a, b) => a.id - b.id);
  return { partIds, mergeId, report: merged, archive: archived, views, enqueuedAtMs, mergedAtMs };
}
