import { NudgeError } from '@nudge/core';
import type { Dialect } from '@nudge/store';
import type { CronSchedule, RetentionPolicy, ServedQueue } from '@nudge/engine';
import type { ApiKey } from '@nudge/http';
import { envSchema, LOG_LEVELS, parseSettings, quote, settingsOf, type SettingSource } from './env-schema.js';

export { LOG_LEVELS };

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything the server is configured with, parsed from the environment by {@link loadConfig}. */
export interface ServerConfig {
  /** `DATABASE_URL`: `postgres://…` or a SQLite location (`sqlite:PATH`, `file:PATH`, a path). */
  readonly databaseUrl: string;
  /** The database `databaseUrl` selects. */
  readonly dialect: Dialect;
  /** `NUDGE_HANDLERS`: absolute path (or `file:` URL) of the handler module. */
  readonly handlers: string;
  /** `NUDGE_THREADS`: threads for `cpu` kinds, one job each at a time. */
  readonly threads: number;
  /** `NUDGE_ASYNC_THREADS`: threads for `async` kinds. */
  readonly asyncThreads: number;
  /** `NUDGE_ASYNC_CONCURRENCY`: `async` jobs one thread runs at once. */
  readonly asyncConcurrency: number;
  /** `NUDGE_MAX_CLAIM_BATCH`: most rows one claim takes per execution class. */
  readonly maxClaimBatch: number;
  /** `NUDGE_QUEUES`: the queues this instance serves, with optional caps (`default,emails:4`). */
  readonly queues: readonly ServedQueue[];
  /** `NUDGE_CPU_THREAD_NICE`: how much lower than the main thread the `cpu` threads run. */
  readonly cpuThreadNice: number;
  /** `HOST`: interface to listen on. */
  readonly host: string;
  /** `PORT`: TCP port; 0 picks a free one. */
  readonly port: number;
  /** `NUDGE_POLL_INTERVAL_MS`: time between safety polls after a sign of work, in ms. */
  readonly pollIntervalMs: number;
  /** `NUDGE_CLAIM_COOLDOWN_MS`: least time between claim queries once they keep finding nothing, in ms. */
  readonly claimCooldownMs: number;
  /**
   * `NUDGE_IDLE_POLL_MAX_MS`: longest time between safety polls of an idle instance whose
   * listener is healthy, in ms (the bound on a job whose wake-up was lost).
   */
  readonly idlePollMaxMs: number;
  /**
   * `NUDGE_LISTEN`: wake on new jobs from other connections (PostgreSQL `LISTEN`; SQLite: another
   * connection's commit to the file, seen through `PRAGMA data_version`).
   */
  readonly listen: boolean;
  /**
   * `NUDGE_LISTEN_URL`: a direct PostgreSQL connection for `LISTEN` when `DATABASE_URL` goes
   * through a transaction pooler; unset, `LISTEN` uses `DATABASE_URL`, or stays off behind a pooler.
   */
  readonly listenUrl: string | undefined;
  /**
   * `NUDGE_PG_PREPARED_STATEMENTS`: named prepared statements on PostgreSQL; `false` declares a
   * transaction pooler; unset (`undefined`), on unless a pooler is found at start.
   */
  readonly pgPreparedStatements: boolean | undefined;
  /** `NUDGE_LEASE_MS`: lease of a claimed job, in ms. */
  readonly leaseMs: number;
  /** `NUDGE_SWEEP_INTERVAL_MS`: time between sweeps for expired leases, in ms. */
  readonly sweepIntervalMs: number;
  /** `NUDGE_JOB_TIMEOUT_MS`: longest an attempt may run, in ms. */
  readonly jobTimeoutMs: number;
  /** `NUDGE_ABORT_GRACE_MS`: time between `ctx.signal` firing and the thread being terminated, in ms. */
  readonly abortGraceMs: number;
  /** `NUDGE_SHUTDOWN_GRACE_MS`: time running jobs get to finish on shutdown, in ms. */
  readonly shutdownGraceMs: number;
  /** `NUDGE_UNHANDLED_KIND_GRACE_MS`: how long a job may wait while no instance handles its kind, in ms. */
  readonly unhandledKindGraceMs: number;
  /** `NUDGE_SCHEDULES`: recurring jobs besides the handler module's `schedules` export. */
  readonly schedules: readonly CronSchedule[];
  /** `NUDGE_RETENTION`: how long finished jobs are kept, per status and kind. */
  readonly retention: RetentionPolicy;
  /** `NUDGE_PRUNE_INTERVAL_MS`: time between retention runs, in ms; 0 never prunes. */
  readonly pruneIntervalMs: number;
  /** `NUDGE_DB_TIMEOUT_MS`: longest a database call may take, in ms. */
  readonly dbTimeoutMs: number;
  /** `NUDGE_DB_CONNECT_TIMEOUT_MS`: longest wait for a new PostgreSQL connection, in ms. */
  readonly dbConnectTimeoutMs: number;
  /** `NUDGE_MAX_OLD_GENERATION_MB`: heap limit of each worker thread, in MB. */
  readonly maxOldGenerationSizeMb: number;
  /** `NUDGE_BODY_LIMIT_BYTES`: largest request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** `NUDGE_API_KEYS`: the keys the API accepts, with their scopes; empty leaves the API open. */
  readonly apiKeys: readonly ApiKey[];
  /** `NUDGE_ALLOW_UNAUTHENTICATED`: serve the API without keys on a non-loopback `host`. */
  readonly allowUnauthenticated: boolean;
  /** `NUDGE_RATE_LIMIT_PER_MINUTE`: most requests per minute per key (per address without keys); 0 is no limit. */
  readonly rateLimitPerMinute: number;
  /**
   * `NUDGE_METRICS_MAX_QUEUES`: most queues, besides those of `NUDGE_QUEUES` and those paused or
   * given limits, with `/metrics` series of their own; further queues count as `(other)`.
   */
  readonly metricsMaxQueues: number;
  /** `LOG_LEVEL`: the least severe level logged. */
  readonly logLevel: LogLevel;
}

/**
 * Whether `host` only accepts connections from this machine: `localhost`, `127.0.0.0/8`, `::1`
 * (or `::ffff:127.…`).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Names of every environment variable {@link loadConfig} reads, in documentation order. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema('/').shape);

/** The variables a command that only talks to the database reads (see {@link loadDatabaseConfig}). */
const DATABASE_VARIABLES = {
  DATABASE_URL: true,
  NUDGE_PG_PREPARED_STATEMENTS: true,
  NUDGE_LEASE_MS: true,
  NUDGE_DB_TIMEOUT_MS: true,
  NUDGE_DB_CONNECT_TIMEOUT_MS: true,
  LOG_LEVEL: true,
} as const;

/** The part of {@link ServerConfig} that opening the store needs, and nothing else. */
export type DatabaseConfig = Pick<
  ServerConfig,
  | 'databaseUrl'
  | 'dialect'
  | 'pgPreparedStatements'
  | 'leaseMs'
  | 'dbTimeoutMs'
  | 'dbConnectTimeoutMs'
  | 'logLevel'
>;

/**
 * The environment as a source of settings: an empty or blank value counts as unset, and messages
 * name the variables.
 */
function environmentSource(env: NodeJS.ProcessEnv): SettingSource {
  const texts: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) texts[name] = value?.trim() === '' ? undefined : value;
  return { texts, nameOf: (variable) => variable, show: (_variable, text) => quote(text) };
}

const dialectOf = (url: string): Dialect => (/^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite');

/**
 * Reads only the database part of the configuration (`DATABASE_URL`,
 * `NUDGE_PG_PREPARED_STATEMENTS`, `NUDGE_LEASE_MS`,
 * `NUDGE_DB_TIMEOUT_MS`, `NUDGE_DB_CONNECT_TIMEOUT_MS`, `LOG_LEVEL`), with the same forms,
 * defaults and messages as {@link loadConfig}: what the `nudge` commands that need no handlers
 * use, so they run without `NUDGE_HANDLERS`.
 *
 * @param env - the variables; other variables are ignored (default: `process.env`)
 * @throws NudgeError `INVALID_CONFIG` with a one-line message naming each invalid variable
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const e = parseSettings(envSchema(process.cwd()).pick(DATABASE_VARIABLES), environmentSource(env));
  return {
    databaseUrl: e.DATABASE_URL,
    dialect: dialectOf(e.DATABASE_URL),
    pgPreparedStatements: e.NUDGE_PG_PREPARED_STATEMENTS,
    leaseMs: e.NUDGE_LEASE_MS,
    dbTimeoutMs: e.NUDGE_DB_TIMEOUT_MS,
    dbConnectTimeoutMs: e.NUDGE_DB_CONNECT_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * Reads `NUDGE_RETENTION` only, with the same form, default and message as {@link loadConfig}:
 * what `nudge prune` uses, so it runs without `NUDGE_HANDLERS`.
 * @throws NudgeError `INVALID_CONFIG` with a one-line message naming the entry at fault
 */
export function loadRetentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionPolicy {
  return parseSettings(envSchema(process.cwd()).pick({ NUDGE_RETENTION: true }), environmentSource(env))
    .NUDGE_RETENTION;
}

/**
 * Reads the server's configuration from environment variables (see `docs/configuration.md`).
 * An empty or blank value counts as unset, so its default applies. Relative `NUDGE_HANDLERS`
 * paths are resolved against `cwd`.
 *
 * This is the only place that interprets environment variables (`process.env` is read only as
 * the default argument); `spawnServer` merely passes its own environment on to the child.
 *
 * @param env - the variables; other variables are ignored (default: `process.env`)
 * @param cwd - the directory relative paths start from (default: `process.cwd()`)
 * @throws NudgeError `INVALID_CONFIG` with a one-line message naming each invalid variable and its
 *   accepted form, such as `NUDGE_THREADS must be a whole number from 1 to 1024 (got "abc")`; or
 *   when `HOST` is not a loopback address while `NUDGE_API_KEYS` is empty and
 *   `NUDGE_ALLOW_UNAUTHENTICATED` is not `true` (the message says what to set)
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ServerConfig {
  return configFrom(environmentSource(env), cwd);
}

/**
 * Parses every setting from `source` (the environment, or `startServer`'s options) and checks
 * them together: the one path both take, so they share forms, defaults and messages.
 * @throws NudgeError `INVALID_CONFIG` as {@link loadConfig} describes, naming settings as
 *   `source.nameOf` does
 */
export function configFrom(source: SettingSource, cwd: string): ServerConfig {
  const variables = parseSettings(envSchema(cwd), source);
  const settings = settingsOf(variables);
  if (settings.apiKeys.length === 0 && !settings.allowUnauthenticated && !isLoopbackHost(settings.host)) {
    const name = source.nameOf;
    throw new NudgeError(
      'INVALID_CONFIG',
      `${name('HOST')} is ${quote(settings.host)} but ${name('NUDGE_API_KEYS')} is empty: set ${name('NUDGE_API_KEYS')} (such as "$(openssl rand -hex 24):admin") to require keys, or ${name('NUDGE_ALLOW_UNAUTHENTICATED')}=true to serve the API to the network without them`,
    );
  }
  return { dialect: dialectOf(settings.databaseUrl), ...settings };
}
