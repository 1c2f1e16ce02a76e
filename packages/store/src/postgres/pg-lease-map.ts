import type { JobLease } from '../store.js';

/**
 * The batch writes' per-row input as one `jsonb` object keyed by job id:
 * `{"<id>": [version, ...values]}`. A statement then touches its rows with `id = ANY(ids)`,
 * reading each row's values with `$n::jsonb -> (id::text)`: a primary-key lookup with no join,
 * whose plan cannot go wrong when the table's statistics are stale (a join with `unnest` was
 * planned as a table scan, or a nested loop re-reading the whole array, when the statistics
 * said no row was RUNNING).
 *
 * @param values - extra JSON texts per row, in order, each valid JSON (or omitted)
 */
export function pgLeaseMap<T extends JobLease>(
  items: readonly T[],
  values: (item: T) => readonly string[] = () => [],
): string {
  const parts: string[] = [];
  for (const item of items) {
    const extra = values(item);
    parts.push(`"${item.id}":[${item.version}${extra.length > 0 ? `,${extra.join(',')}` : ''}]`);
  }
  return `{${parts.join(',')}}`;
}

/** SQL reading element `index` of a row's entry in the lease map bound at `param`, as jsonb. */
export const pgLeaseValue = (param: string, index: number): string =>
  `(${param}::jsonb -> (j.id::text) -> ${index})`;

/** SQL reading element `index` of a row's entry in the lease map bound at `param`, as text. */
export const pgLeaseText = (param: string, index: number): string =>
  `(${param}::jsonb -> (j.id::text) ->> ${index})`;

/** SQL for the fencing check against the lease map bound at `param`. */
export const pgLeaseMatches = (param: string): string => `j.version = ${pgLeaseText(param, 0)}::integer`;

/**
 * A `bigint[]` parameter as PostgreSQL's array literal (`{1,2,3}`): ids need no quoting, and
 * node-postgres would otherwise escape every element of a JS array one by one.
 */
export function pgIdArray(items: readonly { readonly id: number }[]): string {
  let text = '{';
  for (let i = 0; i < items.length; i += 1)
    text += i === 0 ? String(items[i]?.id) : `,${String(items[i]?.id)}`;
  return `${text}}`;
}
