import { STORE_CLOCK } from './sqlite-time.js';

/**
 * SQL of a claimed job's `ClaimedSteps` as JSON text, for the claim's `RETURNING` (only for a row
 * with `has_steps`): its step rows, in no particular order (the thread finds a step by its name,
 * and a sort would cost the claim a temporary B-tree), each with how long until its
 * wake-up time or deadline by the store clock, and the first signal of each name: one pass over
 * the job's signals in `nudge_job_signals_by_name` order, where SQLite takes a bare column of a
 * `min()` group from the row that holds the minimum (a correlated `id IN (… GROUP BY name)` ran
 * its group once per signal, in time growing with the square of their count). Each subquery
 * is wrapped in `json()`: a JSON value loses its subtype through a subquery, and `json_object`
 * would embed it as a string.
 */
export const SQLITE_CLAIMED_STEPS = `json_object(
    'steps', json((SELECT json_group_array(json_array(s.name, s.type, s.status, json(s.result), s.error,
                       CASE WHEN s.wake_at IS NOT NULL
                            THEN max(0, (julianday(s.wake_at) - julianday(${STORE_CLOCK})) * 86400000.0) END))
                FROM nudge_job_steps AS s WHERE s.job_id = nudge_jobs.id)),
    'signals', json((SELECT json_group_array(json_array(f.name, json(f.payload)))
                  FROM (SELECT name, payload, min(id) FROM nudge_job_signals
                         WHERE job_id = nudge_jobs.id GROUP BY name) AS f)))`;
