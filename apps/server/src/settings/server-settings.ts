import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { MAX_TIMER_MS } from '@nudge/core';
import { SettingProblem, type SettingTable } from '@nudge/engine/settings';
import { sqlitePath } from '@nudge/store';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_METRICS_MAX_QUEUES,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  parseApiKeys,
  type ApiKey,
} from '@nudge/http/settings';

/** Log levels of pino, the logger Fastify creates; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Shows a raw value in an error message, hiding the password of a URL. */
export function quote(value: string): string {
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:***@'));
}

const DATABASE_URL_FORMS = 'postgres://USER@HOST:PORT/DB, postgresql://…, sqlite:PATH or a file path';

const LISTEN_URL_FORM = 'a postgres:// URL of the same database, not through a pooler';

const HANDLERS_FORM = 'the path of the handler module, relative to the working directory or absolute';

/** Whether `url` selects a database: a `postgres://` or `postgresql://` URL, or a SQLite location. */
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
 * The settings of the server itself (the HTTP API, the database connection, keys and logs),
 * declared as the engine's are ({@link ENGINE_SETTINGS} of `@nudge/engine`): option name (the
 * key), environment variable, type, default, range or form, unit and one line of documentation.
 * The environment schema (`env-schema.ts`), `ServerConfig`, `startServer`'s options, the
 * `nudge serve --help` text and `docs/reference/settings.md` are all read from the two tables.
 */
export const SERVER_SETTINGS = {
  databaseUrl: {
    type: 'text',
    variable: 'DATABASE_URL',
    form: DATABASE_URL_FORMS,
    parse: (url: string): string => {
      if (isDatabaseUrl(url)) return url;
      throw new SettingProblem(`must be ${DATABASE_URL_FORMS} (got ${quote(url)})`);
    },
    default: 'sqlite:./data/nudge.db',
    defaultText: '`sqlite:./data/nudge.db`',
    doc: 'Where jobs are stored; the scheme selects the database: `postgres://USER:PASSWORD@HOST:PORT/DB` or `postgresql://…` for PostgreSQL, `sqlite:PATH`, `file:PATH` or a bare path for SQLite. A SQLite file (and its folder) is created when missing, relative to the working directory. The server migrates the schema at start. The password never appears in logs or error messages.',
  },
  handlers: {
    type: 'text',
    variable: 'NUDGE_HANDLERS',
    form: HANDLERS_FORM,
    parse: (text: string, { cwd }): string => {
      const path = text.startsWith('file:') || isAbsolute(text) ? text : resolve(cwd, text);
      if (path.startsWith('file:') || existsSync(path)) return path;
      throw new SettingProblem(
        `names no file (nothing at ${JSON.stringify(path)}): set it to the path of the handler module`,
      );
    },
    required: true,
    defaultText: 'none (required)',
    doc: "The JavaScript module (a path or a `file:` URL) whose exports are the handlers, one job kind each: `export async function resize(payload, ctx) {}` is a `cpu` kind; `export const sendEmail = { handler, execution: 'async' }` declares an `async` kind. A default export that is an object adds its keys the same way. A definition object may also declare the kind's `maxAttempts`, `queue`, `timeoutMs` (instead of `NUDGE_JOB_TIMEOUT_MS`), `backoff` and payload `schema` (see the `@nudge/engine` README); a wrong declaration stops the server with `HANDLERS_INVALID` naming the kind and the field. It is loaded in worker threads only.",
  },
  host: {
    type: 'text',
    variable: 'HOST',
    form: 'a host name or IP address',
    parse: (text: string): string => text,
    default: '127.0.0.1',
    defaultText: '`127.0.0.1`',
    doc: 'Interface the HTTP API listens on. Use `0.0.0.0` (or `::`) to accept connections from other hosts (with `NUDGE_API_KEYS`, or `NUDGE_ALLOW_UNAUTHENTICATED=true`).',
  },
  port: {
    type: 'wholeNumber',
    variable: 'PORT',
    min: 0,
    max: 65_535,
    default: 3000,
    doc: 'TCP port of the HTTP API; `0` picks a free port, printed in the `listening on http://HOST:PORT` line.',
  },
  listenUrl: {
    type: 'text',
    variable: 'NUDGE_LISTEN_URL',
    form: LISTEN_URL_FORM,
    parse: (url: string): string => {
      if (/^postgres(ql)?:\/\//i.test(url) && URL.canParse(url)) return url;
      throw new SettingProblem(`must be ${LISTEN_URL_FORM} (got ${quote(url)})`);
    },
    optional: true,
    defaultText: 'unset',
    doc: 'PostgreSQL only: a direct connection to the same database (not through the pooler) for `LISTEN`, when `DATABASE_URL` goes through a transaction pooler. Unset: `LISTEN` uses `DATABASE_URL`, or stays off behind a pooler (jobs then start on `POST /nudge` and the poll).',
  },
  pgPreparedStatements: {
    type: 'switch',
    variable: 'NUDGE_PG_PREPARED_STATEMENTS',
    optional: true,
    unsetMeaning: 'true unless a transaction pooler is found at start',
    doc: 'PostgreSQL only: named prepared statements (each hot-path query parsed once per connection). `false` declares a transaction pooler (PgBouncer `pool_mode = transaction`, managed poolers): no prepared statements, no session settings at connect. Unset: on, unless the service finds a pooler at start (it sends a session setting at connect and reads it back; a pooler rejects or drops it) and logs one line saying so.',
  },
  dbTimeoutMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_DB_TIMEOUT_MS',
    min: 100,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 10_000,
    doc: "Longest a database call may take: PostgreSQL's `statement_timeout` and the client's wait for an answer, SQLite's busy timeout. Claims, heartbeats and `/readyz` fail within it when the database is unreachable; the service stays up and resumes when it is back.",
  },
  dbConnectTimeoutMs: {
    type: 'wholeNumber',
    variable: 'NUDGE_DB_CONNECT_TIMEOUT_MS',
    min: 100,
    max: MAX_TIMER_MS,
    unit: 'ms',
    default: 5000,
    doc: 'Longest wait for a new PostgreSQL connection.',
  },
  bodyLimitBytes: {
    type: 'wholeNumber',
    variable: 'NUDGE_BODY_LIMIT_BYTES',
    min: 1,
    max: 1_073_741_824,
    unit: 'bytes',
    default: DEFAULT_BODY_LIMIT_BYTES,
    defaultText: `\`${DEFAULT_BODY_LIMIT_BYTES}\` (1 MiB)`,
    doc: 'Largest HTTP request body; larger ones are refused with `413 BODY_TOO_LARGE`. Keep payloads small: store large data elsewhere and pass a reference.',
  },
  apiKeys: {
    type: 'text',
    variable: 'NUDGE_API_KEYS',
    form: 'KEY:SCOPE[+SCOPE] entries separated by commas (scopes: enqueue, read, admin)',
    parse: (text: string): readonly ApiKey[] => parseApiKeys(text),
    default: [] as readonly ApiKey[],
    defaultText: 'empty (no keys: the API is open)',
    doc: 'The keys the API accepts as `Authorization: Bearer KEY`, with what each may do: `enqueue` for `POST /jobs`, `/jobs/batch` and `/nudge`, `read` for `GET` routes, `admin` for cancel, retry and queue pause/resume (and the others). A key is at least 16 printable ASCII characters without space, `:` or `,`. `GET /healthz` and `GET /readyz` need no key. Such as `$(openssl rand -hex 24):admin,$(openssl rand -hex 24):enqueue+read`. Jobs record the id of the key that enqueued them (the first 16 hex digits of its SHA-256, never the key).',
  },
  allowUnauthenticated: {
    type: 'switch',
    variable: 'NUDGE_ALLOW_UNAUTHENTICATED',
    default: false,
    doc: 'Without keys the service refuses to start (`INVALID_CONFIG`) unless `HOST` is a loopback address (`127.0.0.1`, `localhost`, `::1`); `true` lets it serve other hosts without keys (behind a gateway that authenticates, or on a private network you trust).',
  },
  rateLimitPerMinute: {
    type: 'wholeNumber',
    variable: 'NUDGE_RATE_LIMIT_PER_MINUTE',
    min: 0,
    max: 100_000_000,
    default: DEFAULT_RATE_LIMIT_PER_MINUTE,
    doc: 'Most requests per minute per API key (per client address without keys), per instance; past it a request answers `429 RATE_LIMITED` with `Retry-After`. Requests refused for their key count too. `0` turns the limit off. Health probes are never limited.',
  },
  metricsMaxQueues: {
    type: 'wholeNumber',
    variable: 'NUDGE_METRICS_MAX_QUEUES',
    min: 0,
    max: 10_000,
    default: DEFAULT_METRICS_MAX_QUEUES,
    doc: 'Most queues with `/metrics` series of their own besides those of `NUDGE_QUEUES` and those paused, resumed or given limits (which always have them): the first ones counted, then, once a minute at a scrape, the busiest. Jobs of any further queue are counted under `queue="(other)"`, so no number of queue names makes a scrape large.',
  },
  logLevel: {
    type: 'choice',
    variable: 'LOG_LEVEL',
    choices: LOG_LEVELS,
    default: 'info',
    doc: 'Least severe level logged. Logs are JSON lines (pino) on stdout. At `warn` and above the `listening on http://HOST:PORT` line is still printed, as plain text.',
  },
} as const satisfies SettingTable;
