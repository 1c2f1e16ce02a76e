/**
 * SQL of a claimed job's `ClaimedSteps` as JSON text, for the claim's `RETURNING` (only for a row
 * with `has_steps`): its step rows, in no particular order (the thread finds a step by its name,
 * and a sort would cost the claim a sort node), each with how long until its
 * wake-up time or deadline by the claim's clock (`clock`, SQL), and the first signal of each name.
 * @param job - the alias of the claimed `nudge_jobs` row
 */
export function pgClaimedSteps(job: string, clock: string): string {
  return `json_build_object(
    'steps', coalesce((SELECT json_agg(json_build_array(s.name, s.type, s.status, s.result, s.error,
                                CASE WHEN s.wake_at IS NOT NULL
                                     THEN greatest(0, extract(epoch FROM s.wake_at - ${clock}) * 1000) END))
                         FROM nudge_job_steps AS s WHERE s.job_id = ${job}.id), '[]'),
    'signals', coalesce((SELECT json_agg(json_build_array(g.name, g.payload))
                           FROM (SELECT DISTINCT ON (name) name, payload FROM nudge_job_signals
                                  WHERE job_id = ${job}.id ORDER BY name, id) AS g), '[]'))::text`;
}
