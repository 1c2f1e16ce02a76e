import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { NudgeError } from '@nudge/core';
import { sqlitePath, type Dialect } from '@nudge/store';
import {
  parseQueueList,
  parseRetention,
  resolveSchedules,
  type CronSchedule,
  type RetentionPolicy,
  type ServedQueue,
} from '@nudge/engine';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, parseApiKeys, type ApiKey } from '@nudge/http';

/** Log levels of pino, the logger Fastify creates; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
  /** `NUDGE_POLL_INTERVAL_MS`: time between polls for due jobs, in ms. */
  readonly pollIntervalMs: number;
  /** `NUDGE_CLAIM_COOLDOWN_MS`: least time between claim queries once they keep finding nothing, in ms. */
  readonly claimCooldownMs: number;
  /** `NUDGE_LISTEN`: wake on PostgreSQL notifications of new jobs (`LISTEN`). */
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

/** Longest delay `setTimeout` honours, in ms (2^31 - 1); longer ones fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A whole number in `[min, max]`, `fallback` when unset. */
function wholeNumber(min: number, max: number, fallback: number, unit = '') {
  return z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback)
    .describe(`a whole number${unit} from ${min} to ${max}`);
}

/** Shows a raw value in an error message, hiding the password of a URL. */
function quote(value: string): string {
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@'));
}

const LISTEN_URL_FORM = 'a postgres:// URL of the same database, not through a pooler';

const DATABASE_URL_FORMS = 'postgres://USER@HOST:PORT/DB, postgresql://…, sqlite:PATH or a file path';

function isDatabaseUrl(url: string): boolean {
  if (/^postgres(ql)?:\/\//i.test(url)) return URL.canParse(url);
  try {
    sqlitePath(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * A variable whose text `parse` reads, `defaultText` when unset; whatever `parse` throws becomes the
 * variable's error: `NAME is invalid: <message>`.
 */
function parsedText<T>(defaultText: string, parse: (text: string) => T) {
  return z
    .string()
    .default(defaultText)
    .transform((text, ctx): T => {
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `is invalid: ${(error as Error).message}` });
        return z.NEVER;
      }
    });
}

/**
 * The variables and their defaults; each schema's description is its accepted form, and a
 * refinement's message is the predicate of the error sentence.
 */
function envSchema(cwd: string) {
  return z.object({
    DATABASE_URL: z
      .string()
      .superRefine((url, ctx) => {
        if (isDatabaseUrl(url)) return;
        ctx.addIssue({ code: 'custom', message: `must be ${DATABASE_URL_FORMS} (got ${quote(url)})` });
      })
      .default('sqlite:./data/nudge.db')
      .describe(DATABASE_URL_FORMS),
    NUDGE_HANDLERS: z
      .string()
      .transform((path) => (path.startsWith('file:') || isAbsolute(path) ? path : resolve(cwd, path)))
      .superRefine((path, ctx) => {
        if (path.startsWith('file:') || existsSync(path)) return;
        ctx.addIssue({
          code: 'custom',
          message: `names no file (nothing at ${JSON.stringify(path)}): set it to the path of the handler module`,
        });
      })
      .describe('the path of the handler module, relative to the working directory or absolute'),
    NUDGE_THREADS: wholeNumber(1, 1024, Math.min(1024, availableParallelism())),
    NUDGE_ASYNC_THREADS: wholeNumber(1, 1024, 1),
    NUDGE_ASYNC_CONCURRENCY: wholeNumber(1, 100_000, 100),
    NUDGE_MAX_CLAIM_BATCH: wholeNumber(1, 10_000, 500),
    NUDGE_CPU_THREAD_NICE: wholeNumber(0, 19, 10),
    NUDGE_QUEUES: parsedText('*', parseQueueList).describe(
      "queue names separated by commas, each with an optional :cap (most of its jobs this instance runs at once), '*' for every other queue, such as default,emails:4",
    ),
    HOST: z.string().default('127.0.0.1').describe('a host name or IP address'),
    PORT: wholeNumber(0, 65535, 3000),
    NUDGE_POLL_INTERVAL_MS: wholeNumber(1, MAX_TIMER_MS, 1000, ' of ms'),
    NUDGE_CLAIM_COOLDOWN_MS: wholeNumber(0, 60_000, 10, ' of ms'),
    NUDGE_LISTEN: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true')
      .describe('true or false'),
    NUDGE_LISTEN_URL: z
      .string()
      .superRefine((url, ctx) => {
        if (/^postgres(ql)?:\/\//i.test(url) && URL.canParse(url)) return;
        ctx.addIssue({ code: 'custom', message: `must be ${LISTEN_URL_FORM} (got ${quote(url)})` });
      })
      .optional()
      .describe(LISTEN_URL_FORM),
    NUDGE_PG_PREPARED_STATEMENTS: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional()
      .describe('true or false (unset: true unless a transaction pooler is found at start)'),
    NUDGE_LEASE_MS: wholeNumber(300, MAX_TIMER_MS, 30_000, ' of ms'),
    NUDGE_SWEEP_INTERVAL_MS: wholeNumber(1, MAX_TIMER_MS, 5000, ' of ms'),
    NUDGE_JOB_TIMEOUT_MS: wholeNumber(1, MAX_TIMER_MS, 300_000, ' of ms'),
    NUDGE_ABORT_GRACE_MS: wholeNumber(0, MAX_TIMER_MS, 1000, ' of ms'),
    NUDGE_SHUTDOWN_GRACE_MS: wholeNumber(0, MAX_TIMER_MS, 10_000, ' of ms'),
    NUDGE_UNHANDLED_KIND_GRACE_MS: wholeNumber(0, MAX_TIMER_MS, 300_000, ' of ms'),
    NUDGE_SCHEDULES: parsedText('[]', (text) => {
      const value = JSON.parse(text) as unknown;
      resolveSchedules(value, 'schedules');
      return value as CronSchedule[];
    }).describe(
      'a JSON array of schedules, such as [{"name":"nightly","cron":"0 3 * * *","timezone":"Europe/Paris","kind":"report"}]',
    ),
    NUDGE_RETENTION: parsedText('', parseRetention).describe(
      'STATUS=AGE or KIND:STATUS=AGE entries separated by commas (statuses SUCCEEDED, FAILED, CANCELLED; ages such as 90s, 15m, 12h, 7d, or keep), such as SUCCEEDED=1d,FAILED=14d',
    ),
    NUDGE_PRUNE_INTERVAL_MS: wholeNumber(0, MAX_TIMER_MS, 60_000, ' of ms'),
    NUDGE_DB_TIMEOUT_MS: wholeNumber(100, MAX_TIMER_MS, 10_000, ' of ms'),
    NUDGE_DB_CONNECT_TIMEOUT_MS: wholeNumber(100, MAX_TIMER_MS, 5000, ' of ms'),
    NUDGE_MAX_OLD_GENERATION_MB: wholeNumber(16, 1_048_576, 512, ' of MB'),
    NUDGE_BODY_LIMIT_BYTES: wholeNumber(1, 1_073_741_824, 1_048_576, ' of bytes'),
    NUDGE_API_KEYS: parsedText('', parseApiKeys).describe(
      'KEY:SCOPE[+SCOPE] entries separated by commas (scopes: enqueue, read, admin)',
    ),
    NUDGE_ALLOW_UNAUTHENTICATED: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true')
      .describe('true or false'),
    NUDGE_RATE_LIMIT_PER_MINUTE: wholeNumber(0, 100_000_000, DEFAULT_RATE_LIMIT_PER_MINUTE),
    LOG_LEVEL: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe(`one of ${LOG_LEVELS.join(', ')}`),
  });
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
 * Parses the variables of `schema` from `env`: empty or blank counts as unset.
 * @throws NudgeError `INVALID_CONFIG` naming each invalid variable and its accepted form
 */
function parseVariables<Schema extends z.ZodObject>(
  schema: Schema,
  env: NodeJS.ProcessEnv,
): z.output<Schema> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const raw: Record<string, string | undefined> = {};
  for (const name of Object.keys(shape)) {
    const value = env[name];
    raw[name] = value === undefined || value.trim() === '' ? undefined : value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      if (problems.has(name)) continue;
      const value = raw[name];
      const accepted = shape[name]?.description ?? 'valid';
      if (value === undefined) problems.set(name, `${name} is required: set it to ${accepted}`);
      else if (issue.code === 'custom') problems.set(name, `${name} ${issue.message}`);
      else problems.set(name, `${name} must be ${accepted} (got ${quote(value)})`);
    }
    throw new NudgeError('INVALID_CONFIG', [...problems.values()].join('; '));
  }
  return parsed.data;
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
  const e = parseVariables(envSchema(process.cwd()).pick(DATABASE_VARIABLES), env);
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
  return parseVariables(envSchema(process.cwd()).pick({ NUDGE_RETENTION: true }), env).NUDGE_RETENTION;
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
  const e = parseVariables(envSchema(cwd), env);
  if (e.NUDGE_API_KEYS.length === 0 && !e.NUDGE_ALLOW_UNAUTHENTICATED && !isLoopbackHost(e.HOST)) {
    throw new NudgeError(
      'INVALID_CONFIG',
      `HOST is ${quote(e.HOST)} but NUDGE_API_KEYS is empty: set NUDGE_API_KEYS (such as "$(openssl rand -hex 24):admin") to require keys, or NUDGE_ALLOW_UNAUTHENTICATED=true to serve the API to the network without them`,
    );
  }
  return {
    databaseUrl: e.DATABASE_URL,
    dialect: dialectOf(e.DATABASE_URL),
    handlers: e.NUDGE_HANDLERS,
    threads: e.NUDGE_THREADS,
    asyncThreads: e.NUDGE_ASYNC_THREADS,
    asyncConcurrency: e.NUDGE_ASYNC_CONCURRENCY,
    maxClaimBatch: e.NUDGE_MAX_CLAIM_BATCH,
    cpuThreadNice: e.NUDGE_CPU_THREAD_NICE,
    queues: e.NUDGE_QUEUES,
    host: e.HOST,
    port: e.PORT,
    pollIntervalMs: e.NUDGE_POLL_INTERVAL_MS,
    claimCooldownMs: e.NUDGE_CLAIM_COOLDOWN_MS,
    listen: e.NUDGE_LISTEN,
    listenUrl: e.NUDGE_LISTEN_URL,
    pgPreparedStatements: e.NUDGE_PG_PREPARED_STATEMENTS,
    leaseMs: e.NUDGE_LEASE_MS,
    sweepIntervalMs: e.NUDGE_SWEEP_INTERVAL_MS,
    jobTimeoutMs: e.NUDGE_JOB_TIMEOUT_MS,
    abortGraceMs: e.NUDGE_ABORT_GRACE_MS,
    shutdownGraceMs: e.NUDGE_SHUTDOWN_GRACE_MS,
    unhandledKindGraceMs: e.NUDGE_UNHANDLED_KIND_GRACE_MS,
    schedules: e.NUDGE_SCHEDULES,
    retention: e.NUDGE_RETENTION,
    pruneIntervalMs: e.NUDGE_PRUNE_INTERVAL_MS,
    dbTimeoutMs: e.NUDGE_DB_TIMEOUT_MS,
    dbConnectTimeoutMs: e.NUDGE_DB_CONNECT_TIMEOUT_MS,
    maxOldGenerationSizeMb: e.NUDGE_MAX_OLD_GENERATION_MB,
    bodyLimitBytes: e.NUDGE_BODY_LIMIT_BYTES,
    apiKeys: e.NUDGE_API_KEYS,
    allowUnauthenticated: e.NUDGE_ALLOW_UNAUTHENTICATED,
    rateLimitPerMinute: e.NUDGE_RATE_LIMIT_PER_MINUTE,
    logLevel: e.LOG_LEVEL,
  };
}
