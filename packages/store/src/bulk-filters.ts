import type { CancelJobsFilter, RetryJobsFilter } from './bulk-command-types.js';

/** One condition of a bulk command's filter: `column op value`, its value bound as a parameter. */
export interface BulkCondition {
  readonly column: 'kind' | 'queue' | 'created_at' | 'finished_at';
  readonly op: '=' | '>=' | '<';
  readonly value: string | Date;
}

/**
 * How a dialect binds a condition's value: `placeholder(index, condition)` is its SQL for the
 * `index`-th condition, `value(condition)` the value the driver binds there.
 */
export interface FilterBinding {
  readonly placeholder: (index: number, condition: BulkCondition) => string;
  readonly value: (condition: BulkCondition) => unknown;
}

/** The conditions of a bulk cancel, in both dialects: kind, queue, then the creation range. */
export function cancelConditions(filter: CancelJobsFilter): BulkCondition[] {
  return conditions([
    ['kind', '=', filter.kind],
    ['queue', '=', filter.queue],
    ['created_at', '>=', filter.createdAfter],
    ['created_at', '<', filter.createdBefore],
  ]);
}

/** The conditions of a bulk retry, in both dialects: kind, queue, then the finishing range. */
export function retryConditions(filter: RetryJobsFilter): BulkCondition[] {
  return conditions([
    ['kind', '=', filter.kind],
    ['queue', '=', filter.queue],
    ['finished_at', '>=', filter.finishedAfter],
    ['finished_at', '<', filter.finishedBefore],
  ]);
}

function conditions(
  given: ReadonlyArray<readonly [BulkCondition['column'], BulkCondition['op'], string | Date | undefined]>,
): BulkCondition[] {
  return given.flatMap(([column, op, value]) => (value === undefined ? [] : [{ column, op, value }]));
}

/**
 * The SQL of `conditions` (each to be `AND`ed to a page's `WHERE`) and the values they bind, in
 * the dialect `binding` writes.
 */
export function bulkFilterSql(
  conditions: readonly BulkCondition[],
  binding: FilterBinding,
): { sql: string[]; values: unknown[] } {
  return {
    sql: conditions.map((c, i) => `${c.column} ${c.op} ${binding.placeholder(i, c)}`),
    values: conditions.map((c) => binding.value(c)),
  };
}

/**
 * PostgreSQL: numbered parameters from `$first`, cast to the column's type; dates as they are
 * (node-postgres sends them as timestamps).
 */
export const pgFilterBinding = (first: number): FilterBinding => ({
  placeholder: (i, c) => `$${first + i}::${c.value instanceof Date ? 'timestamptz' : 'text'}`,
  value: (c) => c.value,
});

/** SQLite: named parameters `@f0`, `@f1`, …; dates as the ISO-8601 text the table stores. */
export const sqliteFilterBinding: FilterBinding = {
  placeholder: (i) => `@f${i}`,
  value: (c) => (c.value instanceof Date ? c.value.toISOString() : c.value),
};

/** {@link bulkFilterSql} for SQLite, its values by name (`{ f0: …, f1: … }`). */
export function sqliteBulkFilters(conditions: readonly BulkCondition[]): {
  sql: string[];
  values: Record<string, unknown>;
} {
  const { sql, values } = bulkFilterSql(conditions, sqliteFilterBinding);
  return { sql, values: Object.fromEntries(values.map((value, i) => [`f${i}`, value])) };
}
