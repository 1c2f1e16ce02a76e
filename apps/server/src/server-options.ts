import type { ENGINE_SETTINGS, EngineSettingOptions, VariableSettingName } from '@nudge/engine';
import { configFrom, type ServerConfig } from './config.js';
import { quote } from './env-schema.js';
import { isEngineSetting, SETTING_VARIABLES, SETTINGS, type SettingName } from './settings/settings.js';

/** The engine's settings the server reads from its environment (`threads`, `leaseMs`, `queues`…). */
type EngineVariableName = VariableSettingName<typeof ENGINE_SETTINGS>;

/**
 * Settings an option takes as the environment's text rather than as the parsed value: lists in a
 * compact syntax, such as `queues: 'default,emails:4'`, `retention: 'SUCCEEDED=1d,FAILED=14d'`,
 * `apiKeys: 'KEY:admin'`.
 */
type TextSettings = 'queues' | 'retention' | 'apiKeys';

/**
 * The engine's settings as `startServer` takes them in `engine`: each as `Engine.create` takes it
 * (`threads: 2`, `queues: [{ name: 'emails', cap: 4 }]`, a `RetentionPolicy`), or `queues` and
 * `retention` as the environment's text (`'default,emails:4'`).
 */
export type ServerEngineOptions = {
  readonly [Name in EngineVariableName]?: Name extends TextSettings
    ? EngineSettingOptions[Name] | string
    : EngineSettingOptions[Name];
};

/** The server's own settings, which {@link ServerOptions} takes at its top level. */
type ServerSettings = Omit<ServerConfig, 'dialect' | 'handlers' | EngineVariableName>;

/** The engine's settings, as the top level of {@link ServerOptions} took them before `engine`. */
type FlatEngineSettings = Pick<ServerConfig, EngineVariableName>;

/**
 * Options of `startServer`: the settings of the environment (`docs/reference/settings.md`) by
 * option name (`host` is `HOST`), and the engine's in `engine` (`engine.threads` is
 * `NUDGE_THREADS`), passed through to the engine. Whole numbers are numbers, switches booleans;
 * `apiKeys` takes the environment's text. Only `handlers` is required; every setting left out (or
 * `undefined`) takes its default, and every value is checked as the environment's is, with the
 * same messages, naming the option.
 *
 * The engine's settings are still taken at the top level too (`threads: 2`, `queues:
 * 'default,emails:4'`), as before `engine` existed; a setting given both ways is refused.
 *
 * @example
 * ```ts
 * const server = await startServer({
 *   handlers: './handlers.mjs',
 *   databaseUrl: 'sqlite:./data/jobs.db',
 *   port: 0,
 *   engine: { threads: 2, queues: [{ name: 'default' }, { name: 'emails', cap: 4 }] },
 * });
 * ```
 */
export type ServerOptions = {
  /** `NUDGE_HANDLERS`: the handler module's path (relative to the working directory) or `file:` URL. */
  readonly handlers: string;
  /** The engine's settings (`NUDGE_THREADS`, `NUDGE_LEASE_MS`…), by their engine option names. */
  readonly engine?: ServerEngineOptions;
} & {
  readonly [Name in keyof ServerSettings]?: Name extends TextSettings ? string : ServerSettings[Name];
} & {
  readonly [Name in keyof FlatEngineSettings]?: Name extends TextSettings ? string : FlatEngineSettings[Name];
};

/** An option's value as the environment would hold it: text as is, arrays as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * Parses `startServer`'s options into the configuration, through the schema the environment is
 * read with (same forms, defaults, limits and messages), so the two never drift apart. Reads no
 * environment variable. A relative `handlers` path starts at `cwd`. A value of `engine` that is
 * already what the engine takes (a `queues` array, a `RetentionPolicy`, a `schedules` array) is
 * passed through as it is: the engine checks it when it is created.
 *
 * @throws NudgeError `INVALID_CONFIG` naming each invalid option and its accepted form, such as
 *   `engine.threads must be a whole number from 1 to 1024 (got 0)`
 * @throws TypeError when `options` names a setting that does not exist, or one both in `engine`
 *   and at the top level
 */
export function resolveServerOptions(options: ServerOptions, cwd: string = process.cwd()): ServerConfig {
  const texts: Record<string, string | undefined> = {};
  const shown = new Map<string, string>();
  const names = new Map<string, string>();
  const passed: Record<string, unknown> = {};
  const take = (name: string, value: unknown, where: string): void => {
    if (value === undefined) return;
    const variable = SETTING_VARIABLES[name as SettingName];
    if (names.has(variable)) {
      throw new TypeError(`startServer takes ${name} once: in engine or at the top level, not both`);
    }
    names.set(variable, where);
    const setting = SETTINGS[name as SettingName];
    if (where.startsWith('engine.') && setting.type === 'text' && typeof value !== 'string') {
      passed[name] = value;
      return;
    }
    texts[variable] = asText(value);
    shown.set(variable, typeof value === 'string' ? quote(value) : asText(value));
  };
  for (const [name, value] of Object.entries(options.engine ?? {}) as [string, unknown][]) {
    if (!isEngineSetting(name)) {
      throw new TypeError(
        `startServer has no option engine.${name}; the engine's are ${Object.keys(SETTING_VARIABLES).filter(isEngineSetting).join(', ')}`,
      );
    }
    take(name, value, `engine.${name}`);
  }
  for (const [name, value] of Object.entries(options) as [string, unknown][]) {
    if (name === 'engine') continue;
    if (!Object.hasOwn(SETTING_VARIABLES, name)) {
      throw new TypeError(
        `startServer has no option ${JSON.stringify(name)}; the options are ${Object.keys(SETTING_VARIABLES).join(', ')}, engine`,
      );
    }
    take(name, value, name);
  }
  const optionOf = new Map<string, string>(
    Object.entries(SETTING_VARIABLES).map(([name, variable]) => [variable, name]),
  );
  const config = configFrom(
    {
      texts,
      nameOf: (variable) => names.get(variable) ?? optionOf.get(variable) ?? variable,
      show: (variable, text) => shown.get(variable) ?? quote(text),
    },
    cwd,
  );
  return { ...config, ...passed };
}
