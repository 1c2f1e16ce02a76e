import { acceptedForm } from '@nudge/engine/settings';
import { defaultText } from '../settings/default-text.js';
import { SETTINGS } from '../settings/settings.js';
import { SETTINGS_REFERENCE_PATH } from '../settings/settings-reference.js';

/**
 * The settings `nudge serve` reads, for its `--help`: each variable with its accepted form (its
 * range and unit) and default, as the settings tables declare them.
 */
export function settingsHelp(): string {
  const settings = Object.values(SETTINGS);
  const width = Math.max(...settings.map((setting) => setting.variable.length)) + 2;
  const lines = settings.map((setting) => {
    const fallback =
      'required' in setting ? 'required' : `default: ${defaultText(setting).replace(/`/g, '')}`;
    return `  ${setting.variable.padEnd(width)}${acceptedForm(setting)} (${fallback})`;
  });
  return [`Environment variables (details in ${SETTINGS_REFERENCE_PATH}):`, ...lines].join('\n');
}
