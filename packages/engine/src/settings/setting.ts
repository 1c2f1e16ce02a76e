/**
 * The unit of a whole-number setting, part of its name (`leaseMs`, `NUDGE_LEASE_MS`) and of the
 * accepted form its messages and the settings reference state ("a whole number of ms from 1 to …").
 */
export type SettingUnit = 'ms' | 'MB' | 'bytes' | 'lines';

/** What every setting declares besides its type. */
interface SettingBase {
  /**
   * The environment variable the server reads it from, such as `NUDGE_LEASE_MS`; `undefined` for
   * an option of the library only.
   */
  readonly variable?: string;
  /**
   * What it does, in one line of Markdown: the settings reference (`docs/reference/settings.md`)
   * prints it. Names of other settings are written as their variables.
   */
  readonly doc: string;
}

/**
 * A whole number in `[min, max]`, such as `leaseMs`; the form "a whole number of ms from 300 to
 * 2147483647".
 */
export interface WholeNumberSetting extends SettingBase {
  readonly type: 'wholeNumber';
  readonly min: number;
  readonly max: number;
  /** The unit, when it has one. */
  readonly unit?: SettingUnit;
  /** The value when unset; a function when it depends on the host, such as `threads`. */
  readonly default: number | (() => number);
  /** The default as the reference shows it, when not the number itself. */
  readonly defaultText?: string;
}

/** `true` or `false`, such as `listen`. */
export interface SwitchSetting extends SettingBase {
  readonly type: 'switch';
  /** The value when unset; absent when `optional`. */
  readonly default?: boolean;
  /** Unset is `undefined`, which lets the consumer decide; `unsetMeaning` says how. */
  readonly optional?: true;
  /** What unset means, when `optional`: "true unless a transaction pooler is found at start". */
  readonly unsetMeaning?: string;
}

/** One of a few words, such as `logLevel`. */
export interface ChoiceSetting extends SettingBase {
  readonly type: 'choice';
  readonly choices: readonly string[];
  readonly default: string;
}

/** What a {@link TextSetting}'s parse may use besides the text. */
export interface SettingContext {
  /** The directory relative paths start from. */
  readonly cwd: string;
}

/**
 * A value written as text in the environment, such as `queues` (`default,emails:4`) or a URL:
 * `parse` reads the text and throws what is wrong with it. Whatever it throws becomes "`NAME` is
 * invalid: <message>", unless it is a {@link SettingProblem}, whose message is the whole predicate
 * ("`NAME` must be …").
 */
export interface TextSetting<T = unknown> extends SettingBase {
  readonly type: 'text';
  /** The accepted form, in words: "queue names separated by commas, …". */
  readonly form: string;
  /** Reads the variable's text. @throws Error (or {@link SettingProblem}) saying what is wrong */
  readonly parse: (text: string, context: SettingContext) => T;
  /** The value when unset; absent when `required` or `optional`. */
  readonly default?: T;
  /** The default as the reference shows it, such as `*` or `none (required)`. */
  readonly defaultText: string;
  /** It must be set (`handlers`). */
  readonly required?: true;
  /** Unset is `undefined` (`listenUrl`). */
  readonly optional?: true;
}

/** One setting's declaration: its type, default, range or form, unit and one-line doc. */
export type Setting = WholeNumberSetting | SwitchSetting | ChoiceSetting | TextSetting;

/** A table of settings, by option name (`leaseMs`). */
export type SettingTable = Readonly<Record<string, Setting>>;

/** The value a setting holds when set. */
type SetValue<S> = S extends { readonly type: 'wholeNumber' }
  ? number
  : S extends { readonly type: 'switch' }
    ? boolean
    : S extends { readonly type: 'choice'; readonly choices: readonly (infer T)[] }
      ? T
      : S extends { readonly parse: (...args: never[]) => infer T }
        ? T
        : never;

/** The value a setting holds once resolved: `undefined` only for an `optional` one left unset. */
export type SettingValue<S> = S extends { readonly optional: true } ? SetValue<S> | undefined : SetValue<S>;

/** Every setting of `Table` that has an environment variable, by option name. */
export type VariableSettingName<Table extends SettingTable> = {
  [Name in keyof Table]: Table[Name] extends { readonly variable: string } ? Name : never;
}[keyof Table];

/** The resolved values of every setting of `Table` that has an environment variable. */
export type VariableSettingValues<Table extends SettingTable> = {
  readonly [Name in VariableSettingName<Table>]: SettingValue<Table[Name]>;
};

/**
 * Thrown by a {@link TextSetting}'s `parse` when its message is the whole predicate of the error
 * sentence, such as `must be a postgres:// URL … (got "x")` or `names no file …`, rather than
 * what follows "is invalid: ".
 */
export class SettingProblem extends Error {
  override readonly name = 'SettingProblem';
}
