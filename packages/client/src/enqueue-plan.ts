import { enqueuePlan as planRows, type ReturnedRow, type SqlDialect, type SqlQuery } from '@nudge/store/sql';
import type { EnqueueResult, JobInput } from './job-input.js';

export { isSingleStatement } from '@nudge/store/sql';

/**
 * The statements that enqueue `jobs` (already validated): the store's enqueue plan (`@nudge/store/sql`), the same
 * SQL the store runs, returning ids and keys only; each job's `{ id, created }` in input order.
 * @throws EnqueueReadBackError when a conflicting job cannot be read back (see `enqueuePlan`)
 */
export function* enqueuePlan(
  dialect: SqlDialect,
  jobs: ReadonlyArray<JobInput<string, unknown>>,
): Generator<SqlQuery, EnqueueResult[], readonly ReturnedRow[]> {
  const planned = yield* planRows<ReturnedRow>(dialect, jobs, 'keys');
  return planned.map(({ row, created }) => ({ id: Number(row.id), created }));
}
