import { createClient } from '@nudge/client';
import { flights3mFile } from './dataset-files.js';
import { computeFindings } from './demo-findings.js';
import { describeJob } from './describe-job.js';
import { FlightsParquet } from './flights-parquet.js';
import { formatSummary } from './format-summary.js';
import { JobProgress } from './job-progress.js';
import { openProducerDatabase } from './producer-database.js';
import type { ProducerOptions } from './producer-options.js';
import { runQueuedReport } from './queued-report.js';
import { computeRunStats } from './run-stats.js';

/**
 * The producer's real-scale mode (`--dataset flights-3m`): enqueues the report as one dependency
 * flow in one transaction of the producer's own (a `flightDelayPart` job per row group of
 * flights-3m.parquet, a `flightDelayMerge` job depending on them all, an `archiveReport` job
 * depending on the merge) and nudges the server; follows the jobs with the progress bar. Prints
 * the findings (comparing the `options.origins` busiest origins) and the run summary.
 *
 * @returns the exit code: 0 when every job succeeded, 1 when one did not
 * @throws Error when the file or the database cannot be read, or the server cannot be reached
 */
export async function runFlights3mDemo(options: ProducerOptions): Promise<number> {
  // The footer only (a few kB): how many row groups, hence part jobs.
  const parquet = await FlightsParquet.open(flights3mFile());
  const client = createClient({ baseUrl: options.nudgeUrl, pollIntervalMs: options.pollIntervalMs });
  const database = openProducerDatabase(options.databaseUrl);
  let progress: JobProgress | undefined;
  try {
    const run = await runQueuedReport({
      database,
      client,
      nudgeUrl: options.nudgeUrl,
      rowGroups: parquet.rowGroups.length,
      timeoutMs: options.timeoutMs,
      archive: { outputDir: options.outputDir },
      log: (line) => console.log(line),
      onProgress: (counts, expectedJobs) => {
        progress ??= new JobProgress(expectedJobs);
        progress.setTotal(expectedJobs);
        progress.update(counts);
      },
    });
    progress?.stop();
    progress = undefined;

    const notSucceeded = run.views.filter((view) => view.status !== 'SUCCEEDED');
    const first = notSucceeded[0];
    if (first) {
      console.error(
        `producer: ${notSucceeded.length} of ${run.views.length} jobs did not succeed; first: ${describeJob(first)}`,
      );
      return 1;
    }
    const { report, archive } = run;
    if (!report || !archive) throw new Error('the merged report or its archive is missing from the results');
    const busiest = { ...report, airports: report.airports.slice(0, options.origins) };
    const findings = computeFindings([busiest], report);
    const stats = computeRunStats(run.views);
    const jobKinds = `${run.partIds.length} parts, 1 merge, 1 archive`;
    console.log('');
    for (const line of formatSummary(findings, {
      stats,
      reports: run.partIds.length + 1,
      archives: [archive],
      jobKinds,
    })) {
      console.log(line);
    }
    return 0;
  } finally {
    progress?.stop();
    await database.close();
  }
}
