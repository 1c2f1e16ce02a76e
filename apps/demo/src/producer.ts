// The demo's producer, its own process: enqueues one delay report per busy origin airport (plus
// one for all) in a transaction of its own with @nudge/client (the outbox pattern), nudges the
// server, waits for the jobs over the HTTP API, archives every report
// the same way, and meanwhile runs one durable review (review-flow.ts: compute, sleep, wait for the
// approval it sends inside its own transaction, archive), then prints what the data shows, how
// the run went and the review's steps. With --dataset flights-3m
// it runs flights-3m-demo.ts instead (part jobs per row group, one merge, one archive). Exit code
// 0 when every job succeeded, 1 when one did not or the server was unreachable, 2 on a bad option.
import { readFile } from 'node:fs/promises';
import { createClient, NudgeApiError, type JobView } from '@nudge/client';
import type { ArchiveResult } from './archive-json.js';
import { busiestOrigins } from './busiest-origins.js';
import { datasetFile, FLIGHTS_3M, type DatasetName } from './dataset-files.js';
import { ALL_ORIGINS, type DelayReport } from './delay-report.js';
import { computeFindings } from './demo-findings.js';
import { describeJob } from './describe-job.js';
import { parseFlights } from './flight.js';
import { runFlights3mDemo } from './flights-3m-demo.js';
import { formatReview } from './format-review.js';
import { formatSummary } from './format-summary.js';
import { ARCHIVE_KIND, REPORT_KIND } from './job-kinds.js';
import { JobProgress } from './job-progress.js';
import { nudgeCommitted } from './nudge-committed.js';
import { openProducerDatabase } from './producer-database.js';
import { PRODUCER_USAGE, readProducerOptions, type ProducerOptions } from './producer-options.js';
import { runReviewFlow } from './review-flow.js';
import { watchRunningJobs } from './running-jobs.js';
import { computeRunStats } from './run-stats.js';

const message = (error: unknown): string => {
  if (error instanceof NudgeApiError && error.code === 'JOB_NOT_FOUND') {
    return `${error.message}: does the server use the same DATABASE_URL?`;
  }
  return error instanceof Error ? error.message : String(error);
};

async function run(options: ProducerOptions & { dataset: DatasetName }): Promise<number> {
  const flights = parseFlights(await readFile(datasetFile(options.dataset), 'utf8'));
  const origins = [...busiestOrigins(flights, options.origins), ALL_ORIGINS];
  // Every waitFor below shares this client's one poller: one GET /jobs?ids=… per interval.
  const client = createClient({ baseUrl: options.nudgeUrl, pollIntervalMs: options.pollIntervalMs });
  const database = openProducerDatabase(options.databaseUrl);
  const stopWaiting = new AbortController();
  let progress: JobProgress | undefined;
  let stopCounting = (): void => undefined;
  try {
    const reportIds = await database.enqueueJobs(
      origins.map((origin) => ({ kind: REPORT_KIND, payload: { dataset: options.dataset, origin } })),
    );
    console.log(
      `Enqueued ${reportIds.length} ${REPORT_KIND} jobs (${origins.length - 1} busiest ` +
        `origin${origins.length === 2 ? '' : 's'} of ${options.dataset} + ALL) in one transaction; ` +
        `nudging ${options.nudgeUrl}`,
    );
    await nudgeCommitted(client, reportIds.length);

    const deadline = Date.now() + options.timeoutMs;
    const waitFor = (id: number): Promise<JobView> =>
      client.waitFor(id, { timeoutMs: Math.max(1, deadline - Date.now()), signal: stopWaiting.signal });
    const reports: DelayReport[] = [];
    const archives: ArchiveResult[] = [];
    const views: JobView[] = [];
    let expected = reportIds.length * 2;
    let done = 0;
    let failed = 0;
    let running = 0;
    const bar = new JobProgress(expected);
    progress = bar;
    const show = (): void => bar.update({ done, running, failed });
    const finish = (view: JobView): void => {
      views.push(view);
      done++;
      if (view.status !== 'SUCCEEDED') failed++;
      show();
    };
    stopCounting = watchRunningJobs(client, Math.max(options.pollIntervalMs, 100), (count) => {
      running = count;
      show();
    });
    // The durable review runs beside the reports: it sleeps and waits for its approval without
    // holding a slot, so the reports run meanwhile.
    const reviewing = runReviewFlow(client, database, {
      dataset: options.dataset,
      ...(options.outputDir === undefined ? {} : { outputDir: options.outputDir }),
      pollIntervalMs: options.pollIntervalMs,
      waitFor,
      signal: stopWaiting.signal,
      deadline,
    });
    // Each report, once it succeeded, is archived by a follow-up job enqueued the same way.
    const reporting = Promise.all(
      reportIds.map(async (id) => {
        const view = await waitFor(id);
        finish(view);
        if (view.status !== 'SUCCEEDED') {
          bar.setTotal(--expected);
          return;
        }
        const report = view.result as unknown as DelayReport;
        reports.push(report);
        const name = `delays-${report.dataset}-${report.origin}`;
        const outputDir = options.outputDir === undefined ? {} : { outputDir: options.outputDir };
        const [archiveId] = await database.enqueueJobs([
          { kind: ARCHIVE_KIND, payload: { name, report, ...outputDir } },
        ]);
        await nudgeCommitted(client, 1);
        const archived = await waitFor(archiveId as number);
        finish(archived);
        if (archived.status === 'SUCCEEDED') archives.push(archived.result as unknown as ArchiveResult);
      }),
    );
    const [review] = await Promise.all([reviewing, reporting]);
    stopCounting();
    bar.stop();
    progress = undefined;

    views.sort((a, b) => a.id - b.id);
    const notSucceeded = views.filter((view) => view.status !== 'SUCCEEDED');
    const first = notSucceeded[0];
    if (first) {
      console.error(
        `producer: ${notSucceeded.length} of ${views.length} jobs did not succeed; first: ${describeJob(first)}`,
      );
      return 1;
    }
    if (review.view.status !== 'SUCCEEDED') {
      console.error(`producer: the durable review did not succeed: ${describeJob(review.view)}`);
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
    console.log('');
    for (const line of formatReview(review)) console.log(line);
    return 0;
  } finally {
    stopCounting();
    stopWaiting.abort();
    progress?.stop();
    await database.close();
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
