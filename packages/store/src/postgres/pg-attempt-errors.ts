import { MAX_ATTEMPT_ERRORS } from '@nudge/core';

/** SQL formatting a `timestamptz` as the ISO text stored in `errors` (`…T…Z`, milliseconds). */
export const pgIsoTime = (time: string): string =>
  `to_char((${time}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * SQL for `j.errors` with one more failed attempt at its end and only the last
 * `MAX_ATTEMPT_ERRORS` kept (oldest dropped first). The jsonpath slice `$[last-9 to last]` is
 * lax: on an array shorter than 10 it keeps every element (checked on PostgreSQL 15).
 *
 * @param attempt - SQL for the attempt's number
 * @param at - SQL for the time (a `timestamptz`)
 * @param error - SQL for the message (text)
 * @param instance - SQL for the worker id (text, may be NULL)
 */
export function pgAppendAttemptError(attempt: string, at: string, error: string, instance: string): string {
  const entry = `jsonb_build_object('attempt', ${attempt}, 'at', ${pgIsoTime(at)}, 'error', ${error}, 'instance', ${instance})`;
  return `jsonb_path_query_array(j.errors || jsonb_build_array(${entry}), '$[last-${MAX_ATTEMPT_ERRORS - 1} to last]')`;
}
