import { z } from 'zod';
import { NudgeError } from '@nudge/core';
import { acceptedForm, defaultOf, SettingProblem, type Setting } from '@nudge/engine/settings';
import { SETTINGS, SETTING_VARIABLES, type ParsedSettings, type SettingName } from './settings/settings.js';

// The server's environment schema: one zod schema per variable, built from the settings tables
// (the engine's and the server's), so each form, default and range is written once, in the tables.
// Both the environment and `startServer`'s options are read through it.

export { LOG_LEVELS, quote } from './settings/server-settings.js';
export { SETTING_VARIABLES, type ParsedSettings, type SettingName };

/**
 * The schema of one variable: its text parsed as `setting` says, its default when unset. Its
 * description is the accepted form; a custom issue's message is the predicate of the error
 * sentence ("is invalid: …", "must be …").
 */
function variableSchema(setting: Setting, cwd: string): z.ZodType {
  const form = acceptedForm(setting);
  switch (setting.type) {
    case 'wholeNumber':
      return z
        .string()
        .regex(/^\d+$/)
        .transform(Number)
        .pipe(z.number().int().min(setting.min).max(setting.max))
        .default(() => defaultOf(setting))
        .describe(form);
    case 'switch': {
      const value = z.enum(['true', 'false']).transform((text) => text === 'true');
      return (setting.default === undefined ? value.optional() : value.default(setting.default)).describe(
        form,
      );
    }
    case 'choice':
      return z
        .enum(setting.choices as readonly [string, ...string[]])
        .default(setting.default)
        .describe(form);
    case 'text': {
      const text = setting.required ? z.string() : z.string().optional();
      return text
        .transform((value, ctx): unknown => {
          if (value === undefined) return setting.default;
          try {
            return setting.parse(value, { cwd });
          } catch (error) {
            const problem = (error as Error).message;
            const message = error instanceof SettingProblem ? problem : `is invalid: ${problem}`;
            ctx.addIssue({ code: 'custom', message });
            return z.NEVER;
          }
        })
        .describe(form);
    }
  }
}

/** The variables, by name, each parsed as its setting declares; relative paths start at `cwd`. */
export function envSchema(cwd: string) {
  const shape: Record<string, z.ZodType> = {};
  for (const setting of Object.values(SETTINGS)) shape[setting.variable] = variableSchema(setting, cwd);
  return z.object(shape);
}

/** The schema's parsed variables, by variable. */
export type ParsedVariables = Readonly<Record<string, unknown>>;

/** The parsed variables by their `ServerConfig` names. */
export function settingsOf(variables: ParsedVariables): ParsedSettings {
  const entries = Object.entries(SETTING_VARIABLES).map(([name, variable]) => [name, variables[variable]]);
  return Object.fromEntries(entries) as ParsedSettings;
}

/** Where settings come from, and how an error message names them. */
export interface SettingSource {
  /** Each variable's text; `undefined` is unset (its default applies). */
  readonly texts: Readonly<Record<string, string | undefined>>;
  /** What a message calls a variable: its own name, or the option it came from. */
  readonly nameOf: (variable: string) => string;
  /** How a message shows a variable's value. */
  readonly show: (variable: string, text: string) => string;
}

/**
 * Parses the variables of `schema` from `source`.
 * @throws NudgeError `INVALID_CONFIG` naming each invalid variable (as `source.nameOf` calls it)
 *   and its accepted form
 */
export function parseSettings<Schema extends z.ZodObject>(
  schema: Schema,
  source: SettingSource,
): z.output<Schema> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const raw: Record<string, string | undefined> = {};
  for (const variable of Object.keys(shape)) raw[variable] = source.texts[variable];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0]);
      if (problems.has(variable)) continue;
      const name = source.nameOf(variable);
      const value = raw[variable];
      const accepted = shape[variable]?.description ?? 'valid';
      if (value === undefined) problems.set(variable, `${name} is required: set it to ${accepted}`);
      else if (issue.code === 'custom') problems.set(variable, `${name} ${issue.message}`);
      else problems.set(variable, `${name} must be ${accepted} (got ${source.show(variable, value)})`);
    }
    throw new NudgeError('INVALID_CONFIG', [...problems.values()].join('; '));
  }
  return parsed.data;
}
