import type { BurnCalibration } from './calibrate-burn.js';
import type { MachineInfo } from './machine-info.js';

/** How the bench runs each system; printed with every result. */
export const PROCESS_MODEL = [
  'Each system’s worker runs in its own Node child process: nudge is its server started with `spawnServer` from `@nudge/harness`',
  '(handlers in the server’s worker threads); graphile-worker, pg-boss and BullMQ each run a worker script of the bench.',
  'The bench process is the client: it enqueues through each system’s producer API and times everything with',
  '`performance.now()` on its own clock. Every handler sends one UDP datagram per run to 127.0.0.1 (port in',
  '`BENCH_REPORT_PORT`), from a worker thread or a child process alike, and the client timestamps its receipt and counts',
  'runs per job: `lost` is jobs that never reported, `dup` extra runs. A drain ends at the last report; the client then',
  'polls the system’s own storage until it shows every job completed. All systems run the same handler body.',
].join(' ');

/** What a reader needs to weigh the numbers; printed under the table. */
export const READING_NOTES = [
  'Throughput counts handler reports received by the client, so every system pays the same one datagram per job.',
  'enqueue: the workers run during it, as in production. nudge’s single enqueue is `POST /jobs` (HTTP + one `INSERT`); its batch is `@nudge/client`’s `enqueueMany` (every job validated, the batch in one transaction, as a Node producer writes it, inside its own transaction or not) plus `POST /nudge` per batch. Peers use their own APIs: graphile-worker `addJob`/`addJobs`, pg-boss `send`/`insert`, BullMQ `add`/`addBulk`.',
  'latency: each job is enqueued right after the previous one started, so a polling worker (pg-boss) has just polled and waits close to a full interval every time.',
  'idle-latency: each job is enqueued 20–520 ms (uniform) after the previous one started, so the service has gone quiet in between: what a first job after a pause waits, where latency shows the warm case. Every system waits through the same seeded gaps; p50 and p99 are nearest-rank percentiles of the jobs measured.',
  'cpu: graphile-worker, pg-boss and BullMQ run handlers on their process’s one JavaScript thread, as configured here, so one instance can use at most one core (50 % of a 2-core limit); nudge runs `cpu` kinds in its worker threads. BullMQ’s sandboxed processors could use more cores and are not measured.',
  'pg-limit, finished-rows, retention, not-due-rows and instances run nudge alone; their ratio column says what each row is compared with.',
  'steps: nudge alone on each dialect; its jobs/s row is compared with no-op jobs drained on the same server, alternated. Writes per step are the extra over a no-op drain of as many jobs, divided by the steps: on PostgreSQL transactions committed in the server’s database (`pg_stat_database.xact_commit`), on SQLite the server’s store calls (`nudge_store_calls_total`, one statement or transaction each; a file database has no commit counter the bench can read).',
];

/** Everything the results page says. */
export interface BenchReport {
  readonly quick: boolean;
  /** The exact command that produced the report. */
  readonly command: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly machine: MachineInfo;
  readonly systems: readonly {
    readonly label: string;
    readonly version: string;
    readonly configuration: string;
  }[];
  /** Lines about systems or scenarios that were skipped, and why. */
  readonly skipped: readonly string[];
  readonly scenarios: readonly { readonly name: string; readonly summary: string }[];
  readonly burn: BurnCalibration | undefined;
  /** The results table, Markdown. */
  readonly table: string;
  /** 1, 5 and 15 minute load averages when the run ended. */
  readonly endLoadAverage: readonly number[];
  /** UDP datagrams that matched no measurement (late or foreign). */
  readonly strayReports: number;
}

function loads(values: readonly number[]): string {
  return values.map((value) => value.toFixed(2)).join(' / ');
}

/** The Markdown of `docs/benchmarks.md` for `report`. */
export function renderBenchmarksDoc(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    report.quick ? '# Benchmarks (quick run)' : '# Benchmarks',
    '',
    report.quick
      ? '> **Quick run**: small sizes and one run per measurement, to check that everything works. Do not quote these numbers; a full run (`pnpm bench`) replaces this page.'
      : '> Written by `pnpm bench` on every full run. Compare ratios within this page: the machine is shared and noisy, so absolute numbers move between runs.',
    '',
    'What each target asks, what was measured against it, and the profiles behind the gaps: [performance.md](performance.md).',
    '',
    `Command: \`${report.command}\`  `,
    `Run: ${report.startedAt.toISOString()}, ${(report.durationMs / 60_000).toFixed(1)} min`,
    '',
    '## Results',
    '',
    'Each result is the median of `runs` runs. `ratio` on a peer’s row is nudge’s result ÷ the peer’s (for throughput above 1× is nudge faster, for latency below 1× is); nudge-only scenarios state what they compare with. `lost` and `dup` must be 0.',
    '',
    report.table,
    '',
    ...READING_NOTES.map((note) => `- ${note}`),
    '',
    '## Scenarios',
    '',
    ...report.scenarios.map((s) => `- **${s.name}**: ${s.summary}`),
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpuModel}, ${m.cores} cores available to Node (\`os.availableParallelism()\`)`,
    `- RAM: ${m.memoryGiB.toFixed(1)} GiB; ${m.os}`,
    `- Node ${m.node}; PostgreSQL ${m.postgres}; Redis ${m.redis ?? 'unreachable (BullMQ skipped)'}`,
    `- Load average (1, 5, 15 min) at start ${loads(m.loadAverage)}, at end ${loads(report.endLoadAverage)}: anything above 0 at the start is other work sharing the machine`,
    ...(report.burn
      ? [
          `- CPU-bound job: ${report.burn.iterations.toLocaleString('en-US')} xorshift rounds = ${report.burn.cpuMsPerJob.toFixed(2)} ms CPU, measured with \`process.cpuUsage\` over ${report.burn.sampleJobs} runs in the bench process`,
        ]
      : []),
    '',
    '## Systems and configurations',
    '',
    ...report.systems.map((s) => `- **${s.label}** (${s.version}): ${s.configuration}`),
    ...(report.skipped.length > 0 ? ['', ...report.skipped.map((line) => `- Skipped: ${line}`)] : []),
    '',
    '## Process model',
    '',
    PROCESS_MODEL,
    '',
    `Stray UDP reports (matching no measurement): ${report.strayReports}.`,
    '',
  ];
  return lines.join('\n');
}
