import { CliError } from './cli-error.js';

/**
 * Which form of `nudge retry` or `nudge cancel` was asked for: one job by id, or every job
 * matching the filter options (`given`: the names of those set).
 * @throws CliError when both an id and filters are given, or neither
 */
export function bulkCommandForm(
  command: 'retry' | 'cancel',
  id: number | undefined,
  given: readonly string[],
  example: string,
): { readonly form: 'one'; readonly id: number } | { readonly form: 'bulk' } {
  if (id !== undefined && given.length > 0)
    throw new CliError(
      `give a job id or filters, not both (got ${id} and ${given.map((name) => `--${name}`).join(', ')}): nudge ${command} <id>, or nudge ${command} ${example}`,
    );
  if (id === undefined && given.length === 0)
    throw new CliError(
      `give a job id, or filters for every matching job: nudge ${command} <id>, or nudge ${command} ${example}`,
    );
  return id === undefined ? { form: 'bulk' } : { form: 'one', id };
}

/** Long option names (kebab-case) of the filter options set in commander's parsed `options`. */
export function givenFilters(
  options: Readonly<Record<string, unknown>>,
  filters: readonly string[],
): string[] {
  return filters.filter(
    (name) => options[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] !== undefined,
  );
}
