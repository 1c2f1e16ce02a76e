import { performance } from 'node:perf_hooks';
import type { ArchiveResult } from './archive-json.js';
import { FLIGHTS_3M } from './dataset-files.js';
import { ALL_ORIGINS, type DelayReport } from './delay-report.js';
import type { ProgressCounts } from './job-progress.js';
import { ARCHIVE_KIND, MERGE_KIND, PART_KIND } from './job-kinds.js';
import type { JobView } from './job-view.js';
import { JobWatch } from './job-watch.js';
import { ServerUnreachableError, type NudgeClient } from './nudge-client.js';
import type { NewJob, Outbox } from './outbox.js';

/** Options of {@link runQueuedReport}. */
export interface QueuedReportOptions {
  /** Where the jobs are inserted (the producer's own transactions). */
  readonly outbox: Outbox;
  /** The server's API: nudges and job states. */
  readonly client: NudgeClient;
  /** The server's base URL as the merge job should reach it (copied into its payload). */
  readonly nudgeUrl: string;
  /** Row groups of the file: one `flightDelayPart` job each. */
  readonly rowGroups: number;
  /** Pause between polls of the job states, in ms. */
  readonly pollIntervalMs: number;
  /** Longest wait for all jobs, in ms. */
  readonly timeoutMs: number;
  /** Jobs polled per round, oldest first; see `JobWatchOptions.pollLimit`. @defaultValue all */
  readonly pollLimit?: number;
  /** Routes listed per airport and for the report. @defaultValue 5 */
  readonly topRoutes?: number;
  /**
   * Archive the merged report with an `archiveReport` job; `outputDir` undefined keeps the
   * handler's default folder. Leave out to stop at the merged report.
   */
  readonly archive?: { readonly outputDir: string | undefined };
  /** Told what was enqueued, for the producer's log. */
  readonly log?: (line: string) => void;
  /** Called after every polling round with the counts and the number of jobs now expected. */
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

async function nudgeCommitted(client: NudgeClient, committed: number): Promise<void> {
  await client.nudge().catch((error: unknown) => {
    if (!(error instanceof ServerUnreachableError)) throw error;
    throw new Error(`${error.message} (the ${committed} jobs are committed: a server will run them)`);
  });
}

/**
 * Runs the flights-3m report through the queue: inserts one `flightDelayPart` job per row group in
 * one transaction and nudges the server; once every part has succeeded, inserts one
 * `flightDelayMerge` job that names the parts by id; once that succeeds, optionally archives the
 * report. Nothing after a failed job is enqueued; the run still waits for every enqueued job.
 *
 * @throws ServerUnreachableError-based Error when the server cannot be reached after the insert
 * @throws Error when the jobs do not all finish within `timeoutMs`
 */
export async function runQueuedReport(options: QueuedReportOptions): Promise<QueuedReportRun> {
  const { outbox, client, archive } = options;
  const enqueuedAtMs = performance.now();
  const partIds = await outbox.insertJobs(
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

  const parts = new Set(partIds);
  const followUps = 1 + (archive ? 1 : 0);
  let expected = partIds.length + followUps;
  let done = 0;
  let failed = 0;
  let partsSucceeded = 0;
  let partsFailed = 0;
  let mergeId: number | undefined;
  let archiveId: number | undefined;
  let report: DelayReport | undefined;
  let archived: ArchiveResult | undefined;
  let mergedAtMs: number | undefined;

  const watch = new JobWatch(client, options);
  watch.add(partIds);
  const enqueue = async (job: NewJob): Promise<number> => {
    const [id] = await outbox.insertJobs([job]);
    if (id === undefined) throw new Error(`inserting a ${job.kind} job returned no id`);
    watch.add([id]);
    await client.nudge();
    return id;
  };
  const views = await watch.run(async ({ finished, unfinished }) => {
    for (const view of finished) {
      done++;
      const succeeded = view.status === 'SUCCEEDED';
      if (!succeeded) failed++;
      if (parts.has(view.id)) {
        if (succeeded) partsSucceeded++;
        else if (++partsFailed === 1) expected -= followUps;
      } else if (view.id === mergeId) {
        if (succeeded) {
          report = view.result as DelayReport;
          mergedAtMs = performance.now();
        } else if (archive) expected--;
      } else if (view.id === archiveId && succeeded) {
        archived = view.result as ArchiveResult;
      }
    }
    if (mergeId === undefined && partsSucceeded === partIds.length) {
      const payload = {
        dataset: FLIGHTS_3M,
        parts: partIds,
        nudgeUrl: options.nudgeUrl,
        origin: ALL_ORIGINS,
        topRoutes: options.topRoutes ?? 5,
      };
      mergeId = await enqueue({ kind: MERGE_KIND, payload });
    }
    if (archive && report && archiveId === undefined) {
      const name = `delays-${report.dataset}-${report.origin}`;
      const folder = archive.outputDir === undefined ? {} : { outputDir: archive.outputDir };
      archiveId = await enqueue({ kind: ARCHIVE_KIND, payload: { name, report, ...folder } });
    }
    const running = unfinished.filter((view) => view.status === 'RUNNING').length;
    options.onProgress?.({ done, running, failed }, expected);
  });
  return { partIds, mergeId, report, archive: archived, views, enqueuedAtMs, mergedAtMs };
}
