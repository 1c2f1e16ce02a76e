// The settings table and the parsers its values use: what `@nudge/engine/settings` exports, for
// the command line and the server's configuration. Importing it loads none of the engine, its
// threads, the store or a database driver, so a `nudge` command starts without them.
export { ENGINE_SETTINGS, type EngineSettingName } from './engine-settings.js';
export {
  acceptedForm,
  checkSettingValue,
  defaultOf,
  resolveSettings,
  type ResolvedSettings,
} from './resolve-settings.js';
export {
  SettingProblem,
  type ChoiceSetting,
  type Setting,
  type SettingContext,
  type SettingTable,
  type SettingUnit,
  type SettingValue,
  type SwitchSetting,
  type TextSetting,
  type VariableSettingName,
  type VariableSettingValues,
  type WholeNumberSetting,
} from './setting.js';
export { instanceLiveWithinMs, registryRefreshMs } from '../instance-registry.js';
export {
  parseRetention,
  describeRetention,
  retentionAgeMs,
  DEFAULT_RETENTION,
  KEEP_EVERYTHING,
  type RetentionPolicy,
  type RetentionAges,
} from '../retention-policy.js';
