import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { formatNumber, formatRatio } from '../format-number.js';
import { median } from '../median.js';
import { nudgeSystem } from '../nudge/nudge-system.js';
import type { ReportListener } from '../report/report-listener.js';
import type { ResultRow } from '../result-row.js';
import type { RunningSystem } from '../bench-system.js';
import { benchPayloads } from './bench-payloads.js';
import { measureDrain } from './measure-drain.js';
import { readSteadyCpu, steadyCpuPerJob } from './steady/steady-cpu.js';
import type { Scenario } from './scenario.js';
import { waitUntilFinished } from './wait-until-finished.js';
import { withSystem } from './with-system.js';

type Dialect = 'postgres' | 'sqlite';

/** A collector that accepts every OTLP/HTTP export and discards it: the exporter's cost, no backend's. */
async function discardingCollector(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The server variables of a traced run: the SDK on, exporting over OTLP/HTTP to `endpoint`. */
const tracedEnv = (endpoint: string): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_SERVICE_NAME: 'nudge-bench',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
});

/** Single `POST /jobs` per second over `jobs` enqueues, each awaited, then waits for them to run. */
async function singlesPerSecond(
  system: RunningSystem,
  listener: ReportListener,
  jobs: number,
): Promise<number> {
  const tally = listener.track(jobs);
  try {
    const start = performance.now();
    for (const payload of benchPayloads(tally.run, 0, jobs)) await system.enqueueOne('noop', payload);
    const elapsedMs = performance.now() - start;
    await tally.waitFor(undefined, 120_000 + jobs * 50);
    await waitUntilFinished(system, 120_000 + jobs * 50);
    return (jobs / elapsedMs) * 1000;
  } finally {
    tally.close();
  }
}

/** What one server start measured: a drain and a run of single enqueues. */
interface Round {
  readonly drain: number;
  readonly singles: number;
  /** The server process's CPU (main thread and worker threads) per drained job, in µs. */
  readonly drainCpuUs: number;
  /** The same per single enqueue, its job's run included. */
  readonly singlesCpuUs: number;
  /** Jobs of the drain that never ran, and extra runs. */
  readonly lost: number;
  readonly duplicate: number;
}

const sum = (rounds: readonly Round[], field: 'lost' | 'duplicate'): number =>
  rounds.reduce((total, round) => total + round[field], 0);

/**
 * Tracing's cost on one dialect: `--repeat` rounds, each starting a server with tracing off and
 * one with it on (in turn: off, on; on, off; …, so both see the machine's drift alike), each
 * measuring one drain (after an untimed warm-up drain) and single enqueues.
 */
async function measureDialect(
  context: Parameters<Scenario['run']>[0],
  dialect: Dialect,
  endpoint: string,
): Promise<{ off: Round[]; on: Round[] }> {
  const { drainJobs, enqueueSingleJobs, repeat } = context.options;
  const spec = nudgeSystem(dialect);
  const off: Round[] = [];
  const on: Round[] = [];
  for (let round = 0; round < repeat; round += 1) {
    for (const traced of round % 2 === 0 ? [false, true] : [true, false]) {
      const measured = await withSystem(
        spec,
        context.systemContext,
        async (system) => {
          await measureDrain(system, context.listener, 'noop', drainJobs);
          const adminUrl = context.systemContext.postgres.adminUrl;
          const start = await readSteadyCpu(system, adminUrl);
          const drain = await measureDrain(system, context.listener, 'noop', drainJobs);
          const drained = await readSteadyCpu(system, adminUrl);
          const singles = await singlesPerSecond(system, context.listener, enqueueSingleJobs);
          const end = await readSteadyCpu(system, adminUrl);
          return {
            drain: drain.jobsPerSecond,
            singles,
            drainCpuUs: steadyCpuPerJob(start, drained, drainJobs, false).serviceUs,
            singlesCpuUs: steadyCpuPerJob(drained, end, enqueueSingleJobs, false).serviceUs,
            lost: drain.lost,
            duplicate: drain.duplicate,
          };
        },
        traced ? { env: tracedEnv(endpoint) } : {},
      );
      (traced ? on : off).push(measured);
      context.log(
        `tracing ${spec.label}, ${traced ? 'on' : 'off'} #${round + 1}: drain ${formatNumber(measured.drain)} jobs/s (${formatNumber(measured.drainCpuUs)} µs server CPU a job), ${formatNumber(measured.singles)} single POST /jobs/s (${formatNumber(measured.singlesCpuUs)} µs a job)`,
      );
    }
  }
  return { off, on };
}

/**
 * Tracing: nudge's drain and single enqueues (rates, and the server process's CPU per job, less
 * sensitive to a shared machine's load) with tracing off (no OTEL_* variable: the SDK is
 * never loaded) and on (the SDK in the main thread and every worker thread, exporting each span
 * over OTLP/HTTP to a collector that discards it), measured in the same run.
 */
export const tracingScenario: Scenario = {
  name: 'tracing',
  summary:
    'nudge drain and single POST /jobs with tracing off (no OTEL_* variable) and on (OpenTelemetry SDK, every span exported over OTLP/HTTP to a discarding collector), alternated in one run',
  run: async (context) => {
    const dialects = context.systems
      .map((spec) => spec.id)
      .flatMap((id): Dialect[] => (id === 'nudge' ? ['postgres'] : id === 'nudge-sqlite' ? ['sqlite'] : []));
    const collector = await discardingCollector();
    const rows: ResultRow[] = [];
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      for (const dialect of dialects) {
        const { off, on } = await measureDialect(context, dialect, endpoint);
        const label = nudgeSystem(dialect).label;
        for (const [metric, pick, unit, better] of [
          ['drain', (r: Round) => r.drain, 'jobs/s', 'higher'],
          ['drain', (r: Round) => r.drainCpuUs, 'server CPU µs a job', 'lower'],
          ['single POST /jobs', (r: Round) => r.singles, 'enqueues/s', 'higher'],
          ['single POST /jobs', (r: Round) => r.singlesCpuUs, 'server CPU µs a job', 'lower'],
        ] as const) {
          const offMedian = median(off.map(pick));
          const onMedian = median(on.map(pick));
          context.log(
            `tracing ${label} ${metric}: off ${formatNumber(offMedian)}, on ${formatNumber(onMedian)} ${unit} (on is ${formatRatio(onMedian, offMedian)} of off)`,
          );
          rows.push(
            {
              scenario: `tracing: ${metric}`,
              system: `${label}, tracing off`,
              metric: `${unit} (${better} is better)`,
              value: formatNumber(offMedian),
              ratio: '',
              lost: sum(off, 'lost'),
              duplicate: sum(off, 'duplicate'),
              runs: off.length,
            },
            {
              scenario: `tracing: ${metric}`,
              system: `${label}, tracing on`,
              metric: `${unit} (${better} is better)`,
              value: formatNumber(onMedian),
              ratio: `${formatRatio(onMedian, offMedian)} of off`,
              lost: sum(on, 'lost'),
              duplicate: sum(on, 'duplicate'),
              runs: on.length,
            },
          );
        }
      }
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
    return rows;
  },
};
