import { MAX_ATTEMPT_ERRORS } from '@nudge/core';

/**
 * SQL for `errors` with one more failed attempt at its end, dropping the oldest entry when the
 * array already holds `MAX_ATTEMPT_ERRORS` (every write goes through here, so it never holds
 * more). The column must be unqualified (SQLite's `UPDATE … SET` has no table alias).
 *
 * @param attempt - SQL for the attempt's number
 * @param at - SQL for the time, as stored ISO text
 * @param error - SQL for the message (text)
 * @param instance - SQL for the worker id (text, may be NULL)
 */
export function sqliteAppendAttemptError(
  attempt: string,
  at: string,
  error: string,
  instance: string,
): string {
  const kept = `CASE WHEN json_array_length(errors) >= ${MAX_ATTEMPT_ERRORS} THEN json_remove(errors, '$[0]') ELSE errors END`;
  return `json_insert(${kept}, '$[#]', json_object('attempt', ${attempt}, 'at', ${at}, 'error', ${error}, 'instance', ${instance}))`;
}
