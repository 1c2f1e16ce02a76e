-- The query that nudge_lock_limited_queues returns was planned afresh in each call: PL/pgSQL
-- caches a statement's plan per session, but the plan cache judged the generic plan of that query
-- costlier than the custom ones and kept planning custom plans, 0.6 to 1 ms of CPU in every claim
-- of a limited queue (measured: 200 calls in one transaction took 166 to 240 ms, against 31 ms
-- with generic plans). The query reads the locked queues' rows by name and their running jobs
-- through nudge_jobs_running: the generic plan is the custom plan without its constants.
ALTER FUNCTION nudge_lock_limited_queues(text[], integer[], boolean[], integer, timestamptz)
  SET plan_cache_mode = force_generic_plan;
