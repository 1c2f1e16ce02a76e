import type { StepClearing } from '../retry-steps.js';
import { pgNow } from './pg-row.js';

/**
 * The retry of the rows of CTE `rows` (`id`, `depends_on`, `on_dependency_failure`), as CTEs to
 * follow it in one statement: `deps` locks their dependencies in id order (`FOR NO KEY UPDATE`,
 * as an enqueue of a dependent does, so none finishes between this read and the commit), then
 * `verdict` decides per row, then `changed` writes the rows (a row made `WAITING` is found by its
 * dependencies' trigger through the index on `depends_on`, migration 0021).
 *
 * A dependency is awaited when it has not finished, or when `retried` (an SQL predicate on alias
 * `d`) says this same command retries it. A row whose dependency ended `FAILED` or `CANCELLED`
 * (and is not retried) or no longer exists, and that cancels on a failed dependency, is
 * `blocked`: left as it is. Any other row becomes `WAITING` while it awaits a dependency, else
 * `PENDING`, with fresh attempts, due at once, and no longer waits for a signal (`wait_signal`
 * NULL: a job retried into `WAITING` waits for its dependencies only). The rows are found by
 * primary key from one array
 * (a join of `rows` to the table may flip to a scan of the whole table).
 *
 * Every dependency read is marked `has_dependents` (where it is not yet), so its outcome's trigger
 * releases the row that waits for it: a dependency that had finished when its dependent was
 * enqueued was never marked. A dependency that is itself a row of `rows` is marked by `changed`
 * (one statement may not update a row twice), the others by `marked`.
 *
 * @param where - extra condition on the row to change (alias `p` for `rows`)
 * @param nowParam - the placeholder of the test clock (NULL: the database clock)
 */
export function pgRetryCtes(retried: string, where: string, nowParam: string): string {
  return `
deps AS MATERIALIZED (
  SELECT d.id, d.status, (${retried}) AS retried FROM nudge_jobs AS d
   WHERE d.id = ANY(ARRAY(SELECT x.value::bigint FROM rows AS r, jsonb_array_elements_text(r.depends_on) AS x))
   ORDER BY d.id
     FOR NO KEY UPDATE),
verdict AS (
  SELECT r.id,
         bool_or(d.id IS NOT NULL AND (d.retried OR d.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))) AS waits,
         bool_or(r.on_dependency_failure = 'cancel'
                 AND (d.id IS NULL OR (d.status IN ('FAILED', 'CANCELLED') AND NOT d.retried))) AS blocked
    FROM rows AS r
   CROSS JOIN LATERAL jsonb_array_elements_text(r.depends_on) AS x
    LEFT JOIN deps AS d ON d.id = x.value::bigint
   GROUP BY r.id),
changed AS (
  UPDATE nudge_jobs AS j
     SET status = CASE WHEN v.waits THEN 'WAITING' ELSE 'PENDING' END, version = j.version + 1,
         attempts = 0, run_at = ${pgNow(nowParam)}, lease_expires_at = NULL, started_at = NULL,
         finished_at = NULL, result = NULL, progress = NULL, wait_signal = NULL,
         has_dependents = j.has_dependents OR j.id = ANY(ARRAY(SELECT id FROM deps))
    FROM rows AS p LEFT JOIN verdict AS v ON v.id = p.id
   WHERE j.id = ANY(ARRAY(SELECT id FROM rows)) AND j.id = p.id
     AND NOT coalesce(v.blocked, false) AND ${where}
  RETURNING j.*),
marked AS (
  UPDATE nudge_jobs AS m SET has_dependents = true
   WHERE m.id = ANY(ARRAY(SELECT id FROM deps)) AND NOT m.has_dependents
     AND m.id <> ALL(ARRAY(SELECT id FROM rows)))`;
}

/**
 * The first dependency of job $1 that blocks its retry: one that ended `FAILED` or `CANCELLED`
 * (`status`), or no longer exists (`status` NULL), in the job's `depends_on` order.
 */
export const PG_BLOCKING_DEPENDENCY = `
SELECT x.value::bigint AS id, d.status
  FROM nudge_jobs AS j
 CROSS JOIN LATERAL jsonb_array_elements_text(j.depends_on) WITH ORDINALITY AS x (value, n)
  LEFT JOIN nudge_jobs AS d ON d.id = x.value::bigint
 WHERE j.id = $1 AND (d.id IS NULL OR d.status IN ('FAILED', 'CANCELLED'))
 ORDER BY x.n
 LIMIT 1`;

/**
 * The clearing of the steps of the jobs a retry changed (CTE `changed`, from
 * {@link pgRetryCtes}), as one more CTE to follow it in the same statement, so the steps go in
 * the retry's own transaction and only for the jobs it changed (a refused or blocked retry clears
 * nothing). Empty when nothing is cleared. A job without steps (`has_steps` false) is skipped.
 * `from`: the step named `fromParam` and every step of the job with a greater or equal `position`
 * (the order of first record); a job with no step of that name keeps all its steps.
 */
export function pgClearStepsCte(clearing: StepClearing, fromParam: string): string {
  if (clearing.type === 'none') return '';
  const from =
    clearing.type === 'from'
      ? `
     AND s.position >= (SELECT f.position FROM nudge_job_steps AS f WHERE f.job_id = c.id AND f.name = ${fromParam}::text)`
      : '';
  return `,
cleared AS (
  DELETE FROM nudge_job_steps AS s USING changed AS c
   WHERE c.has_steps AND s.job_id = c.id${from})`;
}

/** Whether job $1 has recorded a step named $2. */
export const PG_HAS_STEP = `SELECT EXISTS (SELECT 1 FROM nudge_job_steps WHERE job_id = $1 AND name = $2) AS found`;
