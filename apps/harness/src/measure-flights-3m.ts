import { isDeepStrictEqual } from 'node:util';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createClient } from '@nudge/client';
import { nearestRank } from '@nudge/core';
import {
  ALL_ORIGINS,
  airportsFile,
  buildPartialReport,
  flights3mFile,
  FLIGHTS_3M,
  FlightsParquet,
  mergeFilePartials,
  openProducerDatabase,
  parseAirports,
  rowGroupPartial,
  runQueuedReport,
  type DelayReport,
} from '@nudge/demo';
import { spawnServer } from './spawn-server.js';

/** The demo's handler module (`apps/demo/dist/handlers.js`), beside the `@nudge/demo` entry. */
export const DEMO_HANDLERS = join(
  dirname(createRequire(import.meta.url).resolve('@nudge/demo')),
  'handlers.js',
);

/** The timed runs of one way of computing the flights-3m report. */
export interface Flights3mTiming {
  /** Median wall time of the timed runs, in ms (`performance.now()` of the measuring process). */
  readonly wallMs: number;
  /** Wall time of each timed run, in ms, in the order they ran. */
  readonly wallMsSamples: readonly number[];
  /** Row groups, hence parts, of the file. */
  readonly parts: number;
  /** The report the last run produced (all origins, 5 top routes). */
  readonly report: DelayReport;
}

/** Options shared by both measurements. */
export interface MeasureOptions {
  /**
   * Untimed runs before the timed ones, so that both ways are measured with warm JIT-compiled
   * code (the calling thread, or the server's worker threads, which take about two runs of
   * eleven parts to settle). @defaultValue 2
   */
  readonly warmUpRuns?: number;
  /** Timed runs; their median is the figure, as this machine's timings vary. @defaultValue 3 */
  readonly timedRuns?: number;
}

/** Options of {@link measureQueuedFlights3m}. */
export interface QueuedMeasureOptions extends MeasureOptions {
  /**
   * Database of the server started for the run: `sqlite:PATH` (created) or `postgres://…` (an
   * existing, preferably empty, database).
   */
  readonly databaseUrl: string;
  /**
   * The handler module the server loads (`NUDGE_HANDLERS`): one with the demo's
   * `flightDelayPart` and `flightDelayMerge` kinds. @defaultValue {@link DEMO_HANDLERS}
   */
  readonly handlers?: string;
  /** The server's worker threads (`NUDGE_THREADS`). @defaultValue 2 */
  readonly threads?: number;
  /** Pause between the measuring process's polls of the job states, in ms. @defaultValue 50 */
  readonly pollIntervalMs?: number;
  /** Longest wait for one run, in ms. @defaultValue 300000 */
  readonly timeoutMs?: number;
}

/** Both wall times side by side; what {@link measureFlights3m} returns. */
export interface Flights3mMeasurement {
  /** {@link measureSingleThreadFlights3m}'s median timed run, in ms. */
  readonly singleThreadWallMs: number;
  /** {@link measureQueuedFlights3m}'s median timed run, in ms. */
  readonly queuedWallMs: number;
  /** Every timed run of each, in ms. */
  readonly singleThreadWallMsSamples: readonly number[];
  readonly queuedWallMsSamples: readonly number[];
  /** `singleThreadWallMs / queuedWallMs`. */
  readonly speedup: number;
  /** The server's worker threads. */
  readonly threads: number;
  /** Part jobs of the queued run. */
  readonly parts: number;
  /** Whether both runs produced the same report, figure for figure. */
  readonly sameReport: boolean;
}

/** The single-thread computation: open, read and aggregate every row group in turn, merge, report. */
async function computeInThisThread(): Promise<{ parts: number; report: DelayReport }> {
  const [parquet, airports] = await Promise.all([
    FlightsParquet.open(flights3mFile()),
    readFile(airportsFile(), 'utf8').then(parseAirports),
  ]);
  const partials = [];
  for (const group of parquet.rowGroups) partials.push(await rowGroupPartial(parquet, group.index));
  const merged = mergeFilePartials(parquet, FLIGHTS_3M, partials);
  const report = buildPartialReport(merged, airports, {
    dataset: FLIGHTS_3M,
    origin: ALL_ORIGINS,
    topRoutes: 5,
  });
  return { parts: partials.length, report };
}

/** Runs `once` untimed `warmUpRuns` times, then timed `timedRuns` times. */
async function timeRuns(
  options: MeasureOptions,
  once: () => Promise<{ wallMs: number; parts: number; report: DelayReport }>,
): Promise<Flights3mTiming> {
  const warmUps = options.warmUpRuns ?? 2;
  const timed = options.timedRuns ?? 3;
  if (!Number.isInteger(warmUps) || warmUps < 0) {
    throw new RangeError(`warmUpRuns must be a whole number (got ${warmUps})`);
  }
  if (!Number.isInteger(timed) || timed < 1) {
    throw new RangeError(`timedRuns must be a whole number from 1 (got ${timed})`);
  }
  for (let run = 0; run < warmUps; run++) await once();
  const runs = [];
  for (let run = 0; run < timed; run++) runs.push(await once());
  const last = runs[runs.length - 1] as (typeof runs)[number];
  const samples = runs.map((run) => run.wallMs);
  return {
    wallMs: nearestRank(Float64Array.from(samples).sort(), 50),
    wallMsSamples: samples,
    parts: last.parts,
    report: last.report,
  };
}

/**
 * Measures the flights-3m report computed in the calling thread, no queue: the same reading,
 * aggregation per row group, merge and report building as the part and merge jobs, one after
 * the other. Each run opens the file and reads airports.csv, inside the timing.
 *
 * @throws Error when the file cannot be read
 */
export async function measureSingleThreadFlights3m(options: MeasureOptions = {}): Promise<Flights3mTiming> {
  return timeRuns(options, async () => {
    const startMs = performance.now();
    const { parts, report } = await computeInThisThread();
    return { wallMs: performance.now() - startMs, parts, report };
  });
}

/**
 * Measures the flights-3m report run through nudge end to end: starts a server with the demo's
 * handlers (or `handlers`) and `threads` worker threads on `databaseUrl`, and times each run from just before
 * the flow is inserted (the part jobs and the merge job that depends on them, in one transaction,
 * then `POST /nudge`) to the moment the merged report is seen by polling (`waitFor`: one `GET /jobs?ids=…` for all unfinished jobs every
 * `pollIntervalMs`). Server start-up is not timed; the server is stopped afterwards.
 *
 * @throws Error when the server does not start, a job fails, or a run exceeds `timeoutMs`
 */
export async function measureQueuedFlights3m(options: QueuedMeasureOptions): Promise<Flights3mTiming> {
  const threads = options.threads ?? 2;
  const server = await spawnServer({
    env: {
      DATABASE_URL: options.databaseUrl,
      NUDGE_HANDLERS: options.handlers ?? DEMO_HANDLERS,
      NUDGE_THREADS: String(threads),
      LOG_LEVEL: 'warn',
    },
  });
  const database = openProducerDatabase(options.databaseUrl);
  try {
    const parquet = await FlightsParquet.open(flights3mFile());
    const client = createClient({ baseUrl: server.url, pollIntervalMs: options.pollIntervalMs ?? 50 });
    return await timeRuns(options, async () => {
      const run = await runQueuedReport({
        database,
        client,
        nudgeUrl: server.url,
        rowGroups: parquet.rowGroups.length,
        timeoutMs: options.timeoutMs ?? 300_000,
      });
      if (!run.report || run.mergedAtMs === undefined) {
        const failed = run.views.find((view) => view.status !== 'SUCCEEDED');
        throw new Error(
          `the queued run failed: job ${failed?.id} (${failed?.kind}) ${failed?.lastError ?? ''}`,
        );
      }
      return { wallMs: run.mergedAtMs - run.enqueuedAtMs, parts: run.partIds.length, report: run.report };
    });
  } finally {
    await database.close();
    await server.stop('SIGTERM', 20_000);
  }
}

/**
 * Measures the flights-3m report in one thread, then through a nudge server with `threads`
 * worker threads, and compares: the figures behind the benchmark's `single-thread wall time`
 * and `queued wall time`.
 *
 * @example
 * const m = await measureFlights3m({ databaseUrl: 'sqlite:/tmp/nudge-measure.db', threads: 2 });
 * console.log(`${m.queuedWallMs} ms queued vs ${m.singleThreadWallMs} ms in one thread`);
 * @throws Error when either run fails
 */
export async function measureFlights3m(options: QueuedMeasureOptions): Promise<Flights3mMeasurement> {
  const single = await measureSingleThreadFlights3m(options);
  const queued = await measureQueuedFlights3m(options);
  return {
    singleThreadWallMs: single.wallMs,
    queuedWallMs: queued.wallMs,
    singleThreadWallMsSamples: single.wallMsSamples,
    queuedWallMsSamples: queued.wallMsSamples,
    speedup: single.wallMs / queued.wallMs,
    threads: options.threads ?? 2,
    parts: queued.parts,
    sameReport: isDeepStrictEqual(single.report, queued.report),
  };
}
