import {
  ENGINE_SETTINGS,
  type VariableSettingName,
  type VariableSettingValues,
} from '@nudge/engine/settings';
import { SERVER_SETTINGS } from './server-settings.js';

/** The engine's settings that the server reads from the environment: those with a variable. */
type EngineVariableSettings = Pick<typeof ENGINE_SETTINGS, VariableSettingName<typeof ENGINE_SETTINGS>>;

/** The engine's settings the server reads from its environment, in the table's order. */
export const ENGINE_VARIABLE_SETTINGS = Object.fromEntries(
  Object.entries(ENGINE_SETTINGS).filter(([, setting]) => 'variable' in setting),
) as EngineVariableSettings;

/** The values of the engine's settings that the server reads from its environment. */
export type EngineVariableSettingValues = VariableSettingValues<EngineVariableSettings>;

/** Every setting of the server, by option name. */
export type ServerSettingTable = typeof SERVER_SETTINGS & EngineVariableSettings;

/**
 * Every setting the server reads from its environment, by option name: its own
 * ({@link SERVER_SETTINGS}) and the engine's that have a variable (`ENGINE_SETTINGS`). In the
 * order messages and `CONFIG_VARIABLES` list them: the database and the handler module, then the
 * engine's, then the rest of the server's.
 */
export const SETTINGS: ServerSettingTable = (() => {
  const { databaseUrl, handlers, ...rest } = SERVER_SETTINGS;
  return { databaseUrl, handlers, ...ENGINE_VARIABLE_SETTINGS, ...rest };
})();

/** A setting's name in `ServerConfig` (and in `startServer`'s options), such as `threads`. */
export type SettingName = keyof ServerSettingTable;

/** Every setting with its parsed value, by its `ServerConfig` name. */
export type ParsedSettings = VariableSettingValues<ServerSettingTable>;

/** Each setting's variable, by its `ServerConfig` name: `threads` is `NUDGE_THREADS`. */
export const SETTING_VARIABLES = Object.fromEntries(
  Object.entries(SETTINGS).map(([name, setting]) => [name, setting.variable]),
) as { readonly [Name in SettingName]: ServerSettingTable[Name]['variable'] };

/** Whether `name` is one of the engine's settings (which `startServer` takes in `engine`). */
export function isEngineSetting(name: string): name is keyof EngineVariableSettings {
  return Object.hasOwn(ENGINE_VARIABLE_SETTINGS, name);
}

/** The engine's settings of `config`, as `Engine.create` takes them: every one, by option name. */
export function engineSettingsOf(config: ParsedSettings): EngineVariableSettingValues {
  const entries = Object.keys(ENGINE_VARIABLE_SETTINGS).map((name) => [name, config[name as SettingName]]);
  return Object.fromEntries(entries) as EngineVariableSettingValues;
}
