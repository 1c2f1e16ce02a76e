import { NudgeError, renameOption } from '@nudge/core';
import { SETTING_VARIABLES, type SettingName } from './env-schema.js';

// The libraries name their own options in messages (`schedules: …`, `apiKeys`); the server fills
// those options from settings, so it names the setting the user wrote: the environment variable
// for `nudge serve`, the option for `startServer` (`schedules`, or `engine.schedules` when given in
// its `engine` object).

/** What a message calls each setting. */
export type SettingNamer = (setting: SettingName) => string;

/** Settings named by the environment variables they are read from: `schedules` is `NUDGE_SCHEDULES`. */
export const BY_VARIABLE: SettingNamer = (setting) => SETTING_VARIABLES[setting];

/**
 * `error` in the server's terms: a library's `NudgeError` about an option that a setting fills
 * (its `option` is a setting's name, such as `schedules`) is renamed to what `nameOf` calls that
 * setting (`NUDGE_SCHEDULES: schedule "nightly": …`); any other error comes back as it is.
 */
export function inSettingTerms(error: unknown, nameOf: SettingNamer): unknown {
  if (!(error instanceof NudgeError) || error.option === undefined) return error;
  if (!Object.hasOwn(SETTING_VARIABLES, error.option)) return error;
  return renameOption(error, nameOf(error.option as SettingName));
}
