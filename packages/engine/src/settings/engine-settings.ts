import { availableParallelism } from 'node:os';
import { MAX_TIMER_MS } from '@nudge/core';
import { EVERY_QUEUE, parseQueueList, type ServedQueue } from '../queue-serving.js';
import { DEFAULT_RETENTION, describeRetention, parseRetention } from '../retention-policy.js';
import { resolveSchedules, type CronSchedule } from '../cron-schedule.js';
import type { SettingTable } from './setting.js';

/** Most threads of one execution class: a bound on worker threads, not on the host. */
const MAX_THREADS = 1024;

/**
 * The engine's settings: each declared once, with its option name (the key), the server's
 * environment variable, type, default, range, unit and one line of documentation. The engine's
 * option resolution (`resolveEngineOptions`), the server's environment schema, `startServer`'s
 * `engine` option, the `nudge serve --help` text and `docs/reference/settings.md` all read this.
 *
 * Every duration that a timer waits for is at most `MAX_TIMER_MS` (2^31 - 1 ms, about 24.8 days):
 * `setTimeout` fires at once on a longer delay, so a longer lease would expire at once.
 */
export const ENGINE_SETTINGS = {
  threads: {
    type: 'wholeNumber',
    variable: 'NUDGE_THREADS',
    min: 1,
    max: MAX_THREADS,
    default: () => Math.min(MAX_THREADS, availableParallelism()),
    defaultText: `the number of CPUs (\`os.availableParallelism()\`, at most ${MAX_THREADS})`,
    doc: 'Threads for `cpu` kinds. Each runs one job at a time, so this is the most `cpu` jobs running at once in this process. No thread starts when the module has no `cpu` kind.',
  },
  asyncThreads: {
    type: 'wholeNumber',
    variable: 'NUDGE_ASYNC_THREADS',
    min: 1,
    max: MAX_THREADS,
    default: 1,
    doc: 'Threads for `async` kinds (I/O-bound handlers). No thread starts when the module has no `async` kind.',
  },
  asyncConcurrency: {
    type: 'wholeNumber',
    variable: 'NUDGE_ASYNC_CONCURRENCY',
    min: 1,
    max: 100_000,
    default: 100,
    doc: '`async` jobs one thread runs at once; `NUDGE_ASYNC_THREADS × NUDGE_ASYNC_CONCURRENCY` is the most `async` jobs running at once in this process.',
  },
  maxClaimBatch: {
    type: 'wholeNumber',
    variable: 'NUDGE_MAX_CLAIM_BATCH',
    min: 1,
    max: 10_000,
    default: 500,
    doc: 'Most jobs one claim query takes per execution class. A claim never takes more than the free slots: an instance never holds a job it cannot start.',
  },
  cpuThreadNice: {
    type: 'wholeNumber',
    variable: 'NUDGE_CPU_THREAD_NICE',
    min: 0,
    max: 19,
    default: 10,
    doc: "How much lower than the service's main thread the `cpu` threads run (a `nice` increment; Linux only, ignored elsewhere). CPU-bound handlers then yield a core at once to the HTTP API, claims and heartbeats instead of making them wait for a time slice. `0` runs them at the same priority.",
  },
  queues: {
    type: 'text',
    variable: 'NUDGE_QUEUES',
    form: "queue names separated by commas, each with an optional :cap (most of its jobs this instance runs at once), '*' for every other queue, such as default,emails:4",
    parse: (text: string): readonly ServedQueue[] => parseQueueList(text),
    default: EVERY_QUEUE,
    defaultText: '*',
    doc: 'The named queues this instance claims from. `default,emails:4,reports:2` serves `default` without a cap and runs at most 4 `emails` and 2 `reports` jobs at once on this instance (caps hold per instance, on top of the thread slots). `*` serves every queue not listed, so `*,reports:2` serves everything and caps `reports`. A queue no instance serves keeps its jobs `PENDING`. Names: 1 to 100 letters, digits, `_`, `.` or `-`, other than `.` and `..`.',
  },
  pollIntervalMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_POLL_INTERVAL_MS',
    min: 1,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 1000,
    doc: 'Time between safety polls after a sign of work, jittered by ±10 %; always this while no new-jobs listener is healthy. A safety poll is one statement: it promotes due scheduled jobs, says whether any job is runnable (then a claim follows) and when the earliest lease expires. `POST /jobs`, `POST /nudge` and new-job wake-ups (`NUDGE_LISTEN`) trigger a claim at once, so polling only bounds the delay of jobs written by other means, and of wake-ups that were lost.',
  },
  claimCooldownMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_CLAIM_COOLDOWN_MS',
    min: 0,
    max: 60_000,
    unit: 'ms',
    default: 10,
    doc: 'Once two claim queries in a row found no job, the least time before the next one; every wake-up meanwhile (`POST /nudge`, a notification, an enqueue) folds into that one claim. A lone wake-up, and the one empty claim that often follows a claim, still run at once. So a storm of wake-ups over an empty queue costs each instance at most about 1000 ÷ this many claim queries a second (100 at the default). `0` claims on every wake-up that finds a free slot.',
  },
  idlePollMaxMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_IDLE_POLL_MAX_MS',
    min: 1,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 30_000,
    doc: 'Longest time between safety polls of an idle instance whose listener is healthy (PostgreSQL `LISTEN`, or on SQLite no other connection writing the file): after a sign of work the interval is `NUDGE_POLL_INTERVAL_MS`, then doubles after each poll up to this. The bound on how late a job whose wake-up was lost starts (plus 10 % jitter and the claim). Below `NUDGE_POLL_INTERVAL_MS`, the poll never backs off.',
  },
  listen: {
    type: 'switch',
    variable: 'NUDGE_LISTEN',
    default: true,
    doc: "Wake when another connection inserts jobs, so a producer's plain `INSERT` starts without `POST /nudge`. PostgreSQL: `LISTEN nudge_jobs` on one session connection per instance (behind a transaction pooler it connects to `NUDGE_LISTEN_URL`, and stays off without one). SQLite: read `PRAGMA data_version` on the instance's own connection every 250 ms, which changes when another connection commits to the file. Ignored by a store that cannot listen.",
  },
  // The engine once took any lease up to Number.MAX_SAFE_INTEGER and the server up to 2^31 - 1:
  // MAX_TIMER_MS is the bound for both, as the lease's expiry and its heartbeat are timer delays.
  leaseMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_LEASE_MS',
    min: 300,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 30_000,
    doc: 'How long a claimed job belongs to this process without a heartbeat. Heartbeats renew it every third of it; if the process dies, another one takes the job over once the lease expires.',
  },
  sweepIntervalMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_SWEEP_INTERVAL_MS',
    min: 1,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 5000,
    doc: "Least time between two sweeps that recover jobs whose lease expired (on any instance). A sweep runs when a lease has expired, so an idle cluster does not sweep, and a stopped instance's jobs are recovered within this of their lease's expiry.",
  },
  jobTimeoutMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_JOB_TIMEOUT_MS',
    min: 1,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 300_000,
    defaultText: '`300000` (5 minutes)',
    doc: "Longest one attempt may run, for kinds that declare no `timeoutMs` of their own. Then the handler's `ctx.signal` fires; a handler still running `NUDGE_ABORT_GRACE_MS` later has its thread terminated. The attempt fails (and is retried with backoff while attempts remain).",
  },
  abortGraceMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_ABORT_GRACE_MS',
    min: 0,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 1000,
    doc: 'Time between `ctx.signal` firing (timeout, lost lease, shutdown) and the thread being terminated. For an `async` kind, the other jobs on a terminated thread are released to `PENDING` without being charged an attempt.',
  },
  shutdownGraceMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_SHUTDOWN_GRACE_MS',
    min: 0,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 10_000,
    doc: 'On shutdown (SIGTERM or SIGINT), how long running jobs get to finish. The rest are aborted and given back to `PENDING` without counting the attempt, so another instance runs them at once. A second signal exits immediately.',
  },
  unhandledKindGraceMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_UNHANDLED_KIND_GRACE_MS',
    min: 0,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 300_000,
    defaultText: '`300000` (5 minutes)',
    doc: 'How long a due job may wait while no running instance has a handler for its kind; then it is failed with a message naming the kind. `0` never fails such jobs. Instances record their kinds in the database and refresh them with every heartbeat.',
  },
  schedules: {
    type: 'text',
    variable: 'NUDGE_SCHEDULES',
    form: 'a JSON array of schedules, such as [{"name":"nightly","cron":"0 3 * * *","timezone":"Europe/Paris","kind":"report"}]',
    parse: (text: string): readonly CronSchedule[] => {
      const value = JSON.parse(text) as unknown;
      resolveSchedules(value, 'schedules');
      return value as CronSchedule[];
    },
    default: [] as readonly CronSchedule[],
    defaultText: '[]',
    doc: "Recurring jobs besides the handler module's `schedules` export: one job per tick across every instance. Each has `name`, `cron`, `kind`, and optional `timezone` (IANA, default `UTC`), `payload`, `queue`, `priority`, `maxAttempts`, `missed` (`latest` or `skip`). Checked at start: a bad expression, time zone or field stops the service with a message naming the schedule; a kind the handler module does not export too.",
  },
  retention: {
    type: 'text',
    variable: 'NUDGE_RETENTION',
    form: 'STATUS=AGE or KIND:STATUS=AGE entries separated by commas (statuses SUCCEEDED, FAILED, CANCELLED; ages such as 90s, 15m, 12h, 7d, or keep), such as SUCCEEDED=1d,FAILED=14d',
    parse: (text: string) => parseRetention(text),
    default: DEFAULT_RETENTION,
    defaultText: describeRetention(DEFAULT_RETENTION),
    doc: 'How long finished jobs are kept after they finish; then the pruner deletes them (`GET /jobs/:id` answers `404`, and their idempotency keys are free again). Entries override the default for the status they name; a `KIND:` entry overrides it for that kind only, such as `report:SUCCEEDED=30d,audit:FAILED=keep`.',
  },
  pruneIntervalMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_PRUNE_INTERVAL_MS',
    min: 0,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 60_000,
    doc: 'Time between retention runs on each instance, jittered by ±10 %. `0` never prunes on a timer (`nudge prune` still does).',
  },
  progressIntervalMs: {
    type: 'wholeNumber',
    min: 10,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 1000,
    doc: "Shortest time between two progress writes of one job (`ctx.progress`): the engine writes the latest value of every job that reported progress in one statement at most once per interval, and each thread sends its jobs' latest values at most once per interval.",
  },
  logLinesPerJob: {
    type: 'wholeNumber',
    variable: 'NUDGE_LOG_LINES_PER_JOB',
    min: 1,
    max: 1_000_000,
    unit: 'lines',
    default: 1000,
    doc: "Most lines of `ctx.log` stored per job, across its attempts. The first lines are kept; from the first line over this cap (or over `NUDGE_LOG_BYTES_PER_JOB`), every later line of the job is dropped and counted (`dropped` of `GET /jobs/:id/logs`). An attempt's thread sends at most this many lines (to the store and to the service's log); later ones are only counted.",
  },
  logBytesPerJob: {
    type: 'wholeNumber',
    variable: 'NUDGE_LOG_BYTES_PER_JOB',
    min: 1,
    max: 1_073_741_824,
    unit: 'bytes',
    default: 1_048_576,
    doc: 'Most bytes of `ctx.log` stored per job, across its attempts: the UTF-8 bytes of the messages and of the fields as JSON. One line holds at most 8 KiB; a longer one is cut (its fields left out, its message cut with a note of its size).',
  },
  logFlushWaitMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_LOG_FLUSH_WAIT_MS',
    min: 0,
    max: 60_000,
    unit: 'ms',
    default: 1000,
    doc: "Longest time an outcome write waits for the job's pending `ctx.log` lines to be stored, so that a client that sees the job finished reads all its kept lines. A slower log write lets the outcome go first; its lines are stored after it. Log lines reach the database at most once per `progressIntervalMs` otherwise.",
  },
  maxOldGenerationSizeMb: {
    type: 'wholeNumber',
    variable: 'NUDGE_MAX_OLD_GENERATION_MB',
    min: 16,
    max: 1_048_576,
    unit: 'MB',
    default: 512,
    doc: 'Heap limit of each worker thread. A handler that exceeds it kills its thread, not the service; the attempt fails and is retried.',
  },
} as const satisfies SettingTable;

/** The option name of an engine setting, such as `leaseMs`. */
export type EngineSettingName = keyof typeof ENGINE_SETTINGS;
