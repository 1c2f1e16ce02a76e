import { NudgeError } from '@nudge/core';
import type { Dialect } from '@nudge/store';
import type { RetentionPolicy } from '@nudge/engine/settings';
import {
  envSchema,
  LOG_LEVELS,
  parseSettings,
  quote,
  SETTING_VARIABLES,
  settingsOf,
  type ParsedSettings,
  type SettingName,
  type SettingSource,
} from './env-schema.js';

export { LOG_LEVELS };

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Everything the server is configured with, parsed from the environment by {@link loadConfig}:
 * every setting of the settings tables (the server's and the engine's, see `SETTINGS`) by its
 * option name, such as `threads` (`NUDGE_THREADS`), and the `dialect` `databaseUrl` selects. Each
 * one's variable, form, default and meaning: `docs/reference/settings.md`.
 */
export type ServerConfig = { readonly dialect: Dialect } & ParsedSettings;

/**
 * Whether `host` only accepts connections from this machine: `localhost`, `127.0.0.0/8`, `::1`
 * (or `::ffff:127.…`).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Names of every environment variable {@link loadConfig} reads, in the order of `SETTINGS` (and of its messages). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema('/').shape);

/** The settings a command that only talks to the database reads (see {@link loadDatabaseConfig}). */
const DATABASE_SETTINGS = [
  'databaseUrl',
  'pgPreparedStatements',
  'leaseMs',
  'dbTimeoutMs',
  'dbConnectTimeoutMs',
  'logLevel',
] as const satisfies readonly SettingName[];

/** The part of {@link ServerConfig} that opening the store needs, and nothing else. */
export type DatabaseConfig = Pick<ServerConfig, 'dialect' | (typeof DATABASE_SETTINGS)[number]>;

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
  const settings = loadSettings(DATABASE_SETTINGS, env);
  return { ...settings, dialect: dialectOf(settings.databaseUrl) };
}

/** Reads the settings `names` from `env` alone, with the forms, defaults and messages of {@link loadConfig}. */
function loadSettings<Name extends SettingName>(
  names: readonly Name[],
  env: NodeJS.ProcessEnv,
): Pick<ParsedSettings, Name> {
  const variables: Record<string, true> = {};
  for (const name of names) variables[SETTING_VARIABLES[name]] = true;
  const schema = envSchema(process.cwd()).pick(variables);
  const parsed = parseSettings(schema, environmentSource(env));
  return Object.fromEntries(names.map((name) => [name, parsed[SETTING_VARIABLES[name]]])) as Pick<
    ParsedSettings,
    Name
  >;
}

/**
 * Reads `NUDGE_RETENTION` only, with the same form, default and message as {@link loadConfig}:
 * what `nudge prune` uses, so it runs without `NUDGE_HANDLERS`.
 * @throws NudgeError `INVALID_CONFIG` with a one-line message naming the entry at fault
 */
export function loadRetentionConfig(env: NodeJS.ProcessEnv = process.env): RetentionPolicy {
  return loadSettings(['retention'], env).retention;
}

/**
 * Reads the server's configuration from environment variables (see `docs/reference/settings.md`).
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

/** The OpenTelemetry variables that ask for traces to be exported (read by the SDK itself). */
const TRACE_EXPORT_VARIABLES = [
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
] as const;

/**
 * Whether the standard OpenTelemetry variables ask for traces: one of `OTEL_TRACES_EXPORTER`
 * (other than `none`), `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is
 * set, and `OTEL_SDK_DISABLED` is not `true`. Only then does the service load and start the SDK
 * (`@opentelemetry/sdk-node`, which reads every other `OTEL_*` variable itself); otherwise it
 * loads none of it. Blank values count as unset.
 * @param env - the variables (default: `process.env`)
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (name: string): string | undefined => env[name]?.trim() || undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return false;
  return TRACE_EXPORT_VARIABLES.some((name) => {
    const text = value(name);
    return text !== undefined && !(name === 'OTEL_TRACES_EXPORTER' && text.toLowerCase() === 'none');
  });
}
