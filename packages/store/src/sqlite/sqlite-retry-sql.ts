import type { StepClearing } from '../retry-steps.js';
import { SQLITE_NOW } from './sqlite-time.js';

const FINISHED = "('SUCCEEDED', 'FAILED', 'CANCELLED')";

/**
 * The retry of the jobs `@ids` (a JSON array) that are in `@status`; `retried` is an SQL predicate
 * on alias `d`, a dependency this same command retries. A dependency is awaited when it has not
 * finished or is `retried`. A job that cancels on a failed dependency while one ended `FAILED` or
 * `CANCELLED` (and is not retried) or no longer exists is left as it is; any other becomes
 * `WAITING` while it awaits a dependency, else `PENDING`, with fresh attempts, due at once, and no
 * longer waits for a signal (`wait_signal` NULL: a job retried into `WAITING` waits for its
 * dependencies only). Run in
 * the same transaction as {@link sqliteRetryEdgesSql}, which records what a `WAITING` job awaits.
 */
export function sqliteRetrySql(retried: string): string {
  const awaited = `(d.status NOT IN ${FINISHED} OR (${retried}))`;
  return `
UPDATE nudge_jobs
   SET status = CASE WHEN EXISTS (
                  SELECT 1 FROM json_each(nudge_jobs.depends_on) AS x JOIN nudge_jobs AS d ON d.id = x.value
                   WHERE ${awaited}) THEN 'WAITING' ELSE 'PENDING' END,
       version = version + 1, attempts = 0, run_at = ${SQLITE_NOW},
       lease_expires_at = NULL, started_at = NULL, finished_at = NULL, result = NULL, progress = NULL,
       wait_signal = NULL
 WHERE id IN (SELECT value FROM json_each(@ids)) AND status = @status
   AND NOT (on_dependency_failure IS 'cancel' AND EXISTS (
         SELECT 1 FROM json_each(nudge_jobs.depends_on) AS x LEFT JOIN nudge_jobs AS d ON d.id = x.value
          WHERE d.id IS NULL OR (d.status IN ('FAILED', 'CANCELLED') AND NOT (${retried}))))
RETURNING *`;
}

/** The edges of the jobs `@ids` that a retry left `WAITING`, to each dependency they await. */
export function sqliteRetryEdgesSql(retried: string): string {
  return `
INSERT OR IGNORE INTO nudge_job_dependencies (job_id, depends_on_id)
SELECT j.id, d.id
  FROM nudge_jobs AS j, json_each(j.depends_on) AS x
  JOIN nudge_jobs AS d ON d.id = x.value
 WHERE j.id IN (SELECT value FROM json_each(@ids)) AND j.status = 'WAITING'
   AND (d.status NOT IN ${FINISHED} OR (${retried}))`;
}

/**
 * Marks `has_dependents` on each dependency that the jobs `@ids` now wait for (where it is not
 * yet), so its outcome's trigger releases them: a dependency that had finished when its dependent
 * was enqueued was never marked. Run after {@link sqliteRetryEdgesSql}.
 */
export const SQLITE_RETRY_MARK_DEPENDENCIES = `
UPDATE nudge_jobs SET has_dependents = 1
 WHERE has_dependents = 0
   AND id IN (SELECT e.depends_on_id
                FROM nudge_jobs AS j, json_each(j.depends_on) AS x
                JOIN nudge_job_dependencies AS e ON e.depends_on_id = x.value AND e.job_id = j.id
               WHERE j.id IN (SELECT value FROM json_each(@ids)))`;

/**
 * The first dependency of job `@id` that blocks its retry: one that ended `FAILED` or `CANCELLED`
 * (`status`), or no longer exists (`status` NULL), in the job's `depends_on` order.
 */
export const SQLITE_BLOCKING_DEPENDENCY = `
SELECT x.value AS id, d.status
  FROM nudge_jobs AS j, json_each(j.depends_on) AS x
  LEFT JOIN nudge_jobs AS d ON d.id = x.value
 WHERE j.id = @id AND (d.id IS NULL OR d.status IN ('FAILED', 'CANCELLED'))
 ORDER BY x.key
 LIMIT 1`;

/**
 * The clearing of the steps of the jobs `@ids` (a JSON array: the jobs a retry just changed, in
 * its transaction), as `clearing` says; undefined when nothing is cleared. `from`: the step named
 * `@from_step` and every step of the job with a greater or equal `position` (the order of first
 * record); a job with no step of that name keeps all its steps. Signals are never cleared.
 */
export function sqliteClearStepsSql(clearing: StepClearing): string | undefined {
  if (clearing.type === 'none') return undefined;
  const from =
    clearing.type === 'from'
      ? `
   AND position >= (SELECT f.position FROM nudge_job_steps AS f
                     WHERE f.job_id = nudge_job_steps.job_id AND f.name = @from_step)`
      : '';
  return `
DELETE FROM nudge_job_steps
 WHERE job_id IN (SELECT value FROM json_each(@ids))${from}`;
}

/** Whether job `@id` has recorded a step named `@name` (1 when it has). */
export const SQLITE_HAS_STEP = `SELECT EXISTS (SELECT 1 FROM nudge_job_steps WHERE job_id = @id AND name = @name) AS found`;
