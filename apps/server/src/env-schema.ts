import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { NudgeError } from '@nudge/core';
import { sqlitePath } from '@nudge/store';
import { parseQueueList, parseRetention, resolveSchedules, type CronSchedule } from '@nudge/engine';
import { DEFAULT_METRICS_MAX_QUEUES, DEFAULT_RATE_LIMIT_PER_MINUTE, parseApiKeys } from '@nudge/http';

// The server's settings: one zod schema of environment variables (their forms, defaults and
// messages), and the name each has in `ServerConfig` and in `startServer`'s options. Both the
// environment and the options are read through this schema, so each default is written once.

/** Log levels of pino, the logger Fastify creates; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
export function quote(value: string): string {
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@'));
}

const LISTEN_URL_FORM = 'a postgres:// URL of the same database, not through a pooler';

const DATABASE_URL_FORMS = 'postgres://USER@HOST:PORT/DB, postgresql://…, sqlite:PATH or a file path';

export function isDatabaseUrl(url: string): boolean {
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
export function envSchema(cwd: string) {
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
    NUDGE_IDLE_POLL_MAX_MS: wholeNumber(1, MAX_TIMER_MS, 30_000, ' of ms'),
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
    NUDGE_METRICS_MAX_QUEUES: wholeNumber(0, 10_000, DEFAULT_METRICS_MAX_QUEUES),
    LOG_LEVEL: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe(`one of ${LOG_LEVELS.join(', ')}`),
  });
}

/** The schema's parsed variables. */
export type ParsedVariables = z.output<ReturnType<typeof envSchema>>;

/**
 * Each setting's name in `ServerConfig` (and in `startServer`'s options) and the variable it is
 * read from. A new variable needs a line here and a field in `ServerConfig`; the compiler
 * rejects a `ServerConfig` field without a line, and a test a variable without one.
 */
export const SETTING_VARIABLES = {
  databaseUrl: 'DATABASE_URL',
  handlers: 'NUDGE_HANDLERS',
  threads: 'NUDGE_THREADS',
  asyncThreads: 'NUDGE_ASYNC_THREADS',
  asyncConcurrency: 'NUDGE_ASYNC_CONCURRENCY',
  maxClaimBatch: 'NUDGE_MAX_CLAIM_BATCH',
  cpuThreadNice: 'NUDGE_CPU_THREAD_NICE',
  queues: 'NUDGE_QUEUES',
  host: 'HOST',
  port: 'PORT',
  pollIntervalMs: 'NUDGE_POLL_INTERVAL_MS',
  claimCooldownMs: 'NUDGE_CLAIM_COOLDOWN_MS',
  idlePollMaxMs: 'NUDGE_IDLE_POLL_MAX_MS',
  listen: 'NUDGE_LISTEN',
  listenUrl: 'NUDGE_LISTEN_URL',
  pgPreparedStatements: 'NUDGE_PG_PREPARED_STATEMENTS',
  leaseMs: 'NUDGE_LEASE_MS',
  sweepIntervalMs: 'NUDGE_SWEEP_INTERVAL_MS',
  jobTimeoutMs: 'NUDGE_JOB_TIMEOUT_MS',
  abortGraceMs: 'NUDGE_ABORT_GRACE_MS',
  shutdownGraceMs: 'NUDGE_SHUTDOWN_GRACE_MS',
  unhandledKindGraceMs: 'NUDGE_UNHANDLED_KIND_GRACE_MS',
  schedules: 'NUDGE_SCHEDULES',
  retention: 'NUDGE_RETENTION',
  pruneIntervalMs: 'NUDGE_PRUNE_INTERVAL_MS',
  dbTimeoutMs: 'NUDGE_DB_TIMEOUT_MS',
  dbConnectTimeoutMs: 'NUDGE_DB_CONNECT_TIMEOUT_MS',
  maxOldGenerationSizeMb: 'NUDGE_MAX_OLD_GENERATION_MB',
  bodyLimitBytes: 'NUDGE_BODY_LIMIT_BYTES',
  apiKeys: 'NUDGE_API_KEYS',
  allowUnauthenticated: 'NUDGE_ALLOW_UNAUTHENTICATED',
  rateLimitPerMinute: 'NUDGE_RATE_LIMIT_PER_MINUTE',
  metricsMaxQueues: 'NUDGE_METRICS_MAX_QUEUES',
  logLevel: 'LOG_LEVEL',
} as const satisfies Record<string, keyof ParsedVariables>;

/** A setting's name in `ServerConfig`. */
export type SettingName = keyof typeof SETTING_VARIABLES;

/** Every setting with its parsed value, by its `ServerConfig` name. */
export type ParsedSettings = {
  -readonly [Name in SettingName]: ParsedVariables[(typeof SETTING_VARIABLES)[Name]];
};

/** The parsed variables by their `ServerConfig` names. */
export function settingsOf(variables: ParsedVariables): ParsedSettings {
  const entries = Object.entries(SETTING_VARIABLES).map(([name, variable]) => [name, variables[variable]]);
  return Object.fromEntries(entries) as ParsedSettings;
}

/** Where settings come from, and how an error message names them. */
export interface SettingSource {
  /** Each variable's text; `undefined` is unset (its default applies). */
  readonly texts: Readonly<Record<string, string | undefined>>;
  /** What a message calls a variable: its own name, or the option it came from. */
  readonly nameOf: (variable: string) => string;
  /** How a message shows a variable's value. */
  readonly show: (variable: string, text: string) => string;
}

/**
 * Parses the variables of `schema` from `source`.
 * @throws NudgeError `INVALID_CONFIG` naming each invalid variable (as `source.nameOf` calls it)
 *   and its accepted form
 */
export function parseSettings<Schema extends z.ZodObject>(
  schema: Schema,
  source: SettingSource,
): z.output<Schema> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const raw: Record<string, string | undefined> = {};
  for (const variable of Object.keys(shape)) raw[variable] = source.texts[variable];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0]);
      if (problems.has(variable)) continue;
      const name = source.nameOf(variable);
      const value = raw[variable];
      const accepted = shape[variable]?.description ?? 'valid';
      if (value === undefined) problems.set(variable, `${name} is required: set it to ${accepted}`);
      else if (issue.code === 'custom') problems.set(variable, `${name} ${issue.message}`);
      else problems.set(variable, `${name} must be ${accepted} (got ${source.show(variable, value)})`);
    }
    throw new NudgeError('INVALID_CONFIG', [...problems.values()].join('; '));
  }
  return parsed.data;
}
