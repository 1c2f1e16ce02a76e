// The demo's producer, its own process: enqueues one delay report per busy origin airport (plus
// one for all) through the outbox, nudges the server, follows the jobs, archives every report
// the same way, then prints what the data shows and how the run went. With --dataset flights-3m
// it runs flights-3m-demo.ts instead (part jobs per row group, one merge, one archive). Exit code
// 0 when every job succeeded, 1 when one did not or the server was unreachable, 2 on a bad option.
import { readFile } from 'node:fs/promises';
import type { ArchiveResult } from './archive-json.js';
import { busiestOrigins } from './busiest-origins.js';
import { datasetFile, FLIGHTS_3M, type DatasetName } from './dataset-files.js';
import { ALL_ORIGINS, type DelayReport } from './delay-report.js';
import { computeFindings } from './demo-findings.js';
import { describeJob } from './describe-job.js';
import { parseFlights } from './flight.js';
import { runFlights3mDemo } from './flights-3m-demo.js';
import { formatSummary } from './format-summary.js';
import { ARCHIVE_KIND, REPORT_KIND } from './job-kinds.js';
import { JobProgress } from './job-progress.js';
import { JobWatch } from './job-watch.js';
import { NudgeClient, ServerUnreachableError } from './nudge-client.js';
import { openOutbox } from './open-outbox.js';
import type { NewJob } from './outbox.js';
import { PRODUCER_USAGE, readProducerOptions, type ProducerOptions } from './producer-options.js';
import { computeRunStats } from './run-stats.js';

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function run(options: ProducerOptions & { dataset: DatasetName }): Promise<number> {
  const flights = parseFlights(await readFile(datasetFile(options.dataset), 'utf8'));
  const origins = [...busiestOrigins(flights, options.origins), ALL_ORIGINS];
  const client = new NudgeClient(options.nudgeUrl);
  const outbox = openOutbox(options.databaseUrl);
  let progress: JobProgress | undefined;
  try {
    const reportIds = await outbox.insertJobs(
      origins.map((origin) => ({ kind: REPORT_KIND, payload: { dataset: options.dataset, origin } })),
    );
    console.log(
      `Enqueued ${reportIds.length} ${REPORT_KIND} jobs (${origins.length - 1} busiest ` +
        `origin${origins.length === 2 ? '' : 's'} of ${options.dataset} + ALL) in one transaction; ` +
        `nudging ${options.nudgeUrl}`,
    );
    await client.nudge().catch((error: unknown) => {
      if (!(error instanceof ServerUnreachableError)) throw error;
      throw new Error(
        `${error.message} (the ${reportIds.length} jobs are committed: a server will run them)`,
      );
    });

    const reportIdSet = new Set(reportIds);
    const reports: DelayReport[] = [];
    const archives: ArchiveResult[] = [];
    let expected = reportIds.length * 2;
    let done = 0;
    let failed = 0;
    progress = new JobProgress(expected);
    const watch = new JobWatch(client, options);
    watch.add(reportIds);
    const views = await watch.run(async ({ finished, unfinished }) => {
      const archiveJobs: NewJob[] = [];
      for (const view of finished) {
        done++;
        if (view.status !== 'SUCCEEDED') failed++;
        if (!reportIdSet.has(view.id)) {
          if (view.status === 'SUCCEEDED') archives.push(view.result as ArchiveResult);
        } else if (view.status === 'SUCCEEDED') {
          const report = view.result as DelayReport;
          reports.push(report);
          const name = `delays-${report.dataset}-${report.origin}`;
          const outputDir = options.outputDir === undefined ? {} : { outputDir: options.outputDir };
          archiveJobs.push({ kind: ARCHIVE_KIND, payload: { name, report, ...outputDir } });
        } else {
          expected--;
          progress?.setTotal(expected);
        }
      }
      if (archiveJobs.length > 0) {
        watch.add(await outbox.insertJobs(archiveJobs));
        await client.nudge();
      }
      const running = unfinished.filter((view) => view.status === 'RUNNING').length;
      progress?.update({ done, running, failed });
    });
    progress.stop();
    progress = undefined;

    const notSucceeded = views.filter((view) => view.status !== 'SUCCEEDED');
    const first = notSucceeded[0];
    if (first) {
      console.error(
        `producer: ${notSucceeded.length} of ${views.length} jobs did not succeed; first: ${describeJob(first)}`,
      );
      return 1;
    }
    const allReport = reports.find((report) => report.origin === ALL_ORIGINS);
    if (!allReport) throw new Error(`the ${ALL_ORIGINS} report is missing from the results`);
    const findings = computeFindings(
      reports.filter((report) => report.origin !== ALL_ORIGINS),
      allReport,
    );
    const stats = computeRunStats(views);
    console.log('');
    for (const line of formatSummary(findings, { stats, reports: reportIds.length, archives }))
      console.log(line);
    return 0;
  } finally {
    progress?.stop();
    await outbox.close();
  }
}

async function main(): Promise<number> {
  let options: ProducerOptions;
  try {
    options = readProducerOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`producer: ${message(error)}\n${PRODUCER_USAGE}`);
    return 2;
  }
  try {
    return options.dataset === FLIGHTS_3M
      ? await runFlights3mDemo(options)
      : await run({ ...options, dataset: options.dataset });
  } catch (error) {
    console.error(`producer: ${message(error)}`);
    return 1;
  }
}

process.exitCode = await main();
