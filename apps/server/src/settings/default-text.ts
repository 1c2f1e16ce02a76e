import type { Setting } from '@nudge/engine/settings';

/**
 * The default of `setting` as the reference and `nudge serve --help` show it, in Markdown: never
 * the host's value (`threads`), so the text is the same everywhere.
 * @throws Error when a computed default has no `defaultText`
 */
export function defaultText(setting: Setting): string {
  if ('defaultText' in setting && setting.defaultText !== undefined) return setting.defaultText;
  switch (setting.type) {
    case 'wholeNumber':
      if (typeof setting.default === 'function') throw new Error('a computed default needs a defaultText');
      return `\`${setting.default}\``;
    case 'switch':
      return setting.default === undefined ? 'unset' : `\`${setting.default}\``;
    case 'choice':
      return `\`${setting.default}\``;
    case 'text':
      return setting.defaultText;
  }
}
