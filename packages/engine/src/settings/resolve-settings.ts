import type { Setting, SettingTable, SettingValue } from './setting.js';

/**
 * A setting's accepted form, in words: the end of "`leaseMs` must be …", such as `a whole number
 * of ms from 300 to 2147483647`, `true or false`, `one of fatal, error, …`, or a text setting's form.
 */
export function acceptedForm(setting: Setting): string {
  switch (setting.type) {
    case 'wholeNumber': {
      const unit = setting.unit === undefined ? '' : ` of ${setting.unit}`;
      return `a whole number${unit} from ${setting.min} to ${setting.max}`;
    }
    case 'switch':
      return setting.unsetMeaning === undefined
        ? 'true or false'
        : `true or false (unset: ${setting.unsetMeaning})`;
    case 'choice':
      return `one of ${setting.choices.join(', ')}`;
    case 'text':
      return setting.form;
  }
}

/** The value `setting` takes when unset: its default, computed when it is a function. */
export function defaultOf<S extends Setting>(setting: S): SettingValue<S> {
  const value: unknown = setting.default;
  return (typeof value === 'function' ? (value as () => unknown)() : value) as SettingValue<S>;
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Checks a value given as an option (not as text) against its setting: a whole number in range,
 * a boolean, one of the choices. A text setting's value is taken as it is: its type already says
 * what it is, and its consumer checks it.
 * @throws RangeError `NAME must be <accepted form> (got VALUE)`, such as
 *   `leaseMs must be a whole number of ms from 300 to 2147483647 (got 0)`
 */
export function checkSettingValue(name: string, setting: Setting, value: unknown): void {
  const valid =
    setting.type === 'wholeNumber'
      ? typeof value === 'number' && Number.isInteger(value) && value >= setting.min && value <= setting.max
      : setting.type === 'switch'
        ? typeof value === 'boolean'
        : setting.type === 'choice'
          ? setting.choices.includes(value as string)
          : true;
  if (!valid) throw new RangeError(`${name} must be ${acceptedForm(setting)} (got ${show(value)})`);
}

/** The values of every setting of `Table`, by option name. */
export type ResolvedSettings<Table extends SettingTable> = {
  readonly [Name in keyof Table]: SettingValue<Table[Name]>;
};

/**
 * Every setting of `table` from `options`: each one left out (or `undefined`) takes its default,
 * every given one is checked eagerly ({@link checkSettingValue}); options not in `table` are ignored.
 * @throws RangeError naming the first option at fault and its accepted form
 */
export function resolveSettings<Table extends SettingTable>(
  table: Table,
  options: Readonly<Partial<Record<keyof Table, unknown>>>,
): ResolvedSettings<Table> {
  const resolved: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(table)) {
    const value = options[name];
    if (value === undefined) {
      resolved[name] = defaultOf(setting);
    } else {
      checkSettingValue(name, setting, value);
      resolved[name] = value;
    }
  }
  return resolved as ResolvedSettings<Table>;
}
