import type { BenchPostgres } from './bench-postgres.js';
import type { BenchKind, BenchPayload } from './bench-job.js';

/** The systems the bench can run. */
export const SYSTEM_IDS = [
  'nudge',
  'nudge-sqlite',
  'graphile-worker',
  'pg-boss',
  'bullmq',
  'bullmq-postgres',
] as const;

/** One of {@link SYSTEM_IDS}. */
export type SystemId = (typeof SYSTEM_IDS)[number];

/** What starting a system needs from the bench. */
export interface SystemContext {
  /** Makes a fresh PostgreSQL database per started system. */
  readonly postgres: BenchPostgres;
  /** UDP port of the bench client's {@link ReportListener}. */
  readonly reportPort: number;
  /** Redis URL, such as `redis://127.0.0.1:6379`. */
  readonly redisUrl: string;
  /** A folder for files such as SQLite databases, removed after the run. */
  readonly tmpDir: string;
}

/** Options of {@link SystemSpec.start}. */
export interface StartOptions {
  /** Worker instances (processes) on the one database. @defaultValue 1 */
  readonly instances?: number;
  /** Runs before the workers start, against the migrated, empty database (nudge only: filler rows). */
  readonly prepare?: (databaseUrl: string) => Promise<void>;
  /** nudge only: server variables over the bench's settings, such as `NUDGE_THREADS`. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * nudge only: the servers' variables from the database's direct URL, over everything else, such
   * as a `DATABASE_URL` through a pooler with `NUDGE_LISTEN_URL` direct. The bench's own producer
   * and counts stay on the direct URL.
   */
  readonly route?: (databaseUrl: string) => Readonly<Record<string, string>>;
  /**
   * The jobs burn CPU: start the system in its best configuration for CPU-bound work (graphile-worker
   * and pg-boss: one worker process per core; BullMQ: sandboxed processors in worker threads).
   * nudge needs nothing: its `burn` kind is a `cpu` kind, one job per thread.
   * @defaultValue false
   */
  readonly cpuBound?: boolean;
}

/** Where a system keeps its jobs, for the CPU accounting of the database server. */
export type SystemStorage =
  | { readonly kind: 'postgres'; readonly database: string }
  | { readonly kind: 'redis' }
  | { readonly kind: 'sqlite' };

/**
 * A system the bench measures, as a producer sees it. The system's workers run in their own
 * child processes; everything here runs in the bench process.
 */
export interface RunningSystem {
  /** Enqueues one job as one producer call, resolving once it has committed. */
  enqueueOne(kind: BenchKind, payload: BenchPayload): Promise<void>;
  /** Enqueues every payload in one batch (one transaction where the system has them). */
  enqueueBatch(kind: BenchKind, payloads: readonly BenchPayload[]): Promise<void>;
  /** Tells the workers new jobs are due where the system needs it (nudge: `POST /nudge`). */
  wake(): Promise<void>;
  /**
   * Jobs enqueued through this object that the system's own storage does not yet show as
   * completed: a cheap query, meant for polling.
   */
  unfinished(): Promise<number>;
  /** Process ids of the system's own processes: nudge's servers, the peers' worker processes. */
  servicePids(): readonly number[];
  /** Where the jobs are kept. */
  readonly storage: SystemStorage;
  /** Stops the workers and closes every connection. */
  stop(): Promise<void>;
}

/** A system and how to start it. */
export interface SystemSpec {
  readonly id: SystemId;
  /**
   * Name in the table with the configuration it runs in brief, such as `nudge (PostgreSQL)` or
   * `graphile-worker 0.18.0 (local queue, batched completion)`.
   */
  readonly label: string;
  /** {@link label} of a start with {@link StartOptions.cpuBound}, such as `pg-boss 12.38.0 (2 processes)`. */
  readonly cpuLabel: string;
  /** Package and version, such as `graphile-worker 0.18.0`. */
  readonly version: string;
  /** The configuration used, printed with the results. */
  readonly configuration: string;
  /**
   * Why the system cannot run on this machine, in one line (Redis unreachable, no Node.js the
   * peer accepts), or `undefined` when it can; the bench then skips it with that message.
   */
  unavailable?(context: SystemContext): Promise<string | undefined>;
  /** Starts the workers on fresh storage; resolves once they are idle and ready. */
  start(context: SystemContext, options?: StartOptions): Promise<RunningSystem>;
}
