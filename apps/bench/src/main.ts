// `pnpm bench`: nudge side by side with graphile-worker, pg-boss and BullMQ (see --help and
// docs/benchmarks.md). PostgreSQL comes from BENCH_DATABASE_URL, else TEST_DATABASE_URL, else a
// throwaway embedded server; Redis from BENCH_REDIS_URL, else redis://127.0.0.1:6379.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startBenchPostgres } from './bench-postgres.js';
import type { SystemContext, SystemId, SystemSpec } from './bench-system.js';
import { renderBenchmarksDoc } from './benchmarks-doc.js';
import { calibrateBurn } from './calibrate-burn.js';
import { parseCliOptions, reportPath, USAGE, type BenchOptions } from './cli-options.js';
import { describeMachine } from './machine-info.js';
import { formatMarkdownTable } from './markdown-table.js';
import { nudgeSystem } from './nudge/nudge-system.js';
import { bullmqSystem } from './peers/bullmq-system.js';
import { graphileSystem } from './peers/graphile-system.js';
import { pgBossSystem } from './peers/pg-boss-system.js';
import { redisVersion } from './redis-probe.js';
import { ReportListener } from './report/report-listener.js';
import { RESULT_COLUMNS, resultCells, type ResultRow } from './result-row.js';
import type { ScenarioContext } from './scenarios/scenario.js';
import { SCENARIOS } from './scenarios/scenario-list.js';

const DOC_PATH = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url));

const SYSTEM_SPECS: Readonly<Record<SystemId, SystemSpec>> = {
  nudge: nudgeSystem('postgres'),
  'nudge-sqlite': nudgeSystem('sqlite'),
  'graphile-worker': graphileSystem,
  'pg-boss': pgBossSystem,
  bullmq: bullmqSystem('redis'),
  'bullmq-postgres': bullmqSystem('postgres'),
};

function readOptions(): BenchOptions {
  try {
    return parseCliOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

const options = readOptions();
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const startedAt = new Date();
const started = performance.now();
const command = ['pnpm bench', ...process.argv.slice(2)].join(' ');
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const tmpDir = mkdtempSync(join(tmpdir(), 'nudge-bench-'));
const listener = await ReportListener.open();
const postgres = await startBenchPostgres(postgresUrl);
try {
  const systemContext: SystemContext = { postgres, reportPort: listener.port, redisUrl, tmpDir };
  const skipped: string[] = [];
  const systems: SystemSpec[] = [];
  for (const spec of options.systems.map((id) => SYSTEM_SPECS[id])) {
    const reason = await spec.unavailable?.(systemContext);
    if (reason === undefined) {
      systems.push(spec);
      continue;
    }
    console.log(`${spec.label}: ${reason}; skipped.`);
    skipped.push(`${spec.label}: ${reason}`);
  }
  const redis = await redisVersion(redisUrl);
  const machine = await describeMachine(postgres.adminUrl, redis);
  const needsBurn = options.scenarios.includes('cpu') || options.scenarios.includes('instances');
  const burn = needsBurn ? calibrateBurn(options.cpuMs) : undefined;

  log(`${options.quick ? 'quick run' : 'full run'}: ${command}`);
  log(
    `machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, PostgreSQL ${machine.postgres}, Redis ${machine.redis ?? 'unreachable'}`,
  );
  log(
    `PostgreSQL: ${postgresUrl ? 'BENCH_DATABASE_URL/TEST_DATABASE_URL' : 'throwaway embedded server'}; UDP reports on 127.0.0.1:${listener.port} (receive buffer ${listener.receiveBufferBytes} bytes)`,
  );
  for (const spec of systems) log(`${spec.label} (${spec.version}): ${spec.configuration}`);
  if (burn)
    log(
      `CPU-bound job: ${burn.iterations} rounds = ${burn.cpuMsPerJob.toFixed(2)} ms CPU (process.cpuUsage over ${burn.sampleJobs} runs)`,
    );

  const context: ScenarioContext = {
    options,
    listener,
    systemContext,
    systems,
    burn: burn ?? { iterations: 0, cpuMsPerJob: Number.NaN, sampleJobs: 0 },
    log,
  };
  const rows: ResultRow[] = [];
  for (const name of options.scenarios) {
    const scenario = SCENARIOS[name];
    log(`— ${name}: ${scenario.summary}`);
    try {
      rows.push(...(await scenario.run(context)));
    } catch (error) {
      console.error(error);
      const message = (error as Error).message.split('\n')[0] ?? 'failed';
      skipped.push(`${name}: failed (${message})`);
      rows.push({
        scenario: name,
        system: '',
        metric: '',
        value: 'failed',
        ratio: '',
        lost: undefined,
        duplicate: undefined,
        runs: 0,
        note: message,
      });
    }
  }

  const table = formatMarkdownTable(RESULT_COLUMNS, rows.map(resultCells));
  console.log(`\n${table}\n`);
  const doc = renderBenchmarksDoc({
    quick: options.quick,
    command:
      postgresUrl && process.env.BENCH_DATABASE_URL
        ? `BENCH_DATABASE_URL=${redact(postgresUrl)} ${command}`
        : command,
    startedAt,
    durationMs: performance.now() - started,
    machine,
    systems,
    skipped,
    scenarios: options.scenarios.map((name) => ({ name, summary: SCENARIOS[name].summary })),
    burn,
    table,
    endLoadAverage: loadavg(),
    strayReports: listener.strayReports,
  });
  const out = reportPath(options, DOC_PATH);
  if (out === undefined) {
    log(`not a full run: ${DOC_PATH} is left as it is (--out FILE writes this report)`);
  } else {
    writeFileSync(out, doc);
    log(`wrote ${out}`);
  }
} finally {
  await listener.close();
  await postgres.close();
  rmSync(tmpDir, { recursive: true, force: true });
}

/** A database URL without its password. */
function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
