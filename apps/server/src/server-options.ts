import { configFrom, type ServerConfig } from './config.js';
import { quote, SETTING_VARIABLES, type SettingName } from './env-schema.js';

/**
 * Settings an option takes as the environment's text rather than as the parsed value: lists in a
 * compact syntax, such as `queues: 'default,emails:4'`, `retention: 'SUCCEEDED=1d,FAILED=14d'`,
 * `apiKeys: 'KEY:admin'`.
 */
type TextSettings = 'queues' | 'retention' | 'apiKeys';

/** The settings {@link ServerOptions} may leave out. */
type OptionalSettings = Omit<ServerConfig, 'dialect' | 'handlers'>;

/**
 * Options of `startServer`: the settings of the environment (`docs/configuration.md`), by their
 * {@link ServerConfig} names (`threads` is `NUDGE_THREADS`, `host` is `HOST`). Whole numbers are
 * numbers, switches booleans, `schedules` an array; `queues`, `retention` and `apiKeys` take the
 * environment's text. Only `handlers` is required; every other setting left out (or
 * `undefined`) takes the environment's default, and every value is checked as the environment's
 * is, with the same messages, naming the option.
 *
 * @example
 * ```ts
 * const server = await startServer({ handlers: './handlers.mjs', databaseUrl: 'sqlite:./data/jobs.db', port: 0 });
 * ```
 */
export type ServerOptions = {
  /** `NUDGE_HANDLERS`: the handler module's path (relative to the working directory) or `file:` URL. */
  readonly handlers: string;
} & {
  readonly [Name in keyof OptionalSettings]?: Name extends TextSettings ? string : OptionalSettings[Name];
};

/** The option a variable comes from, by variable. */
const OPTION_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(SETTING_VARIABLES).map(([name, variable]) => [variable, name]),
);

/** An option's value as the environment would hold it: text as is, arrays as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * Parses `startServer`'s options into the configuration, through the schema the environment is
 * read with (same forms, defaults, limits and messages), so the two never drift apart. Reads no
 * environment variable. A relative `handlers` path starts at `cwd`.
 *
 * @throws NudgeError `INVALID_CONFIG` naming each invalid option and its accepted form, such as
 *   `threads must be a whole number from 1 to 1024 (got 0)`
 * @throws TypeError when `options` names a setting that does not exist
 */
export function resolveServerOptions(options: ServerOptions, cwd: string = process.cwd()): ServerConfig {
  const texts: Record<string, string | undefined> = {};
  const shown = new Map<string, string>();
  for (const [name, value] of Object.entries(options) as [string, unknown][]) {
    if (!Object.hasOwn(SETTING_VARIABLES, name)) {
      throw new TypeError(
        `startServer has no option ${JSON.stringify(name)}; the options are ${Object.keys(SETTING_VARIABLES).join(', ')}`,
      );
    }
    if (value === undefined) continue;
    const variable = SETTING_VARIABLES[name as SettingName];
    texts[variable] = asText(value);
    shown.set(variable, typeof value === 'string' ? quote(value) : asText(value));
  }
  return configFrom(
    {
      texts,
      nameOf: (variable) => OPTION_OF.get(variable) ?? variable,
      show: (variable, text) => shown.get(variable) ?? quote(text),
    },
    cwd,
  );
}
