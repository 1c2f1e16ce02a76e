-- The W3C trace context a job was enqueued in, as JSON text:
-- {"traceparent":"00-<trace id>-<span id>-<flags>","tracestate":"<vendor entries>"} (tracestate
-- only when there is one). Each attempt's span continues the trace it names. NULL for a job
-- enqueued outside any trace (and every job from before this migration): its attempts start
-- traces of their own. Nullable, no default: adding it rewrites no row.
ALTER TABLE nudge_jobs ADD COLUMN trace_context TEXT;
