/**
 * Every state a job row can be in. The `status` column holds exactly these strings.
 *
 * - `PENDING`: waiting for its `run_at`; claimable once `run_at <= now()` (database clock).
 * - `RUNNING`: claimed; owned by `claimed_by` until `lease_expires_at`.
 * - `SUCCEEDED`: the handler returned; `result` holds its JSON value.
 * - `FAILED`: attempts are used up, or the failure was permanent; `last_error` says why.
 * - `CANCELLED`: withdrawn before it succeeded (set by later features).
 */
export const JOB_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

/** One of {@link JOB_STATUSES}. */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
