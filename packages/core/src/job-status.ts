/**
 * Every state a job row can be in. The `status` column holds exactly these strings.
 *
 * - `WAITING`: held back by its dependencies (`dependsOn`) until each has finished; the outcome of
 *   the last one makes it `PENDING` (or `SCHEDULED`, or `CANCELLED` when a dependency failed) in
 *   the same transaction. Or waiting for a signal (`ctx.waitForSignal`; `wait_signal` names it,
 *   `run_at` is the deadline): the signal's insert makes it `PENDING` in the sender's
 *   transaction, the promotion at the deadline. Claims never read it.
 * - `SCHEDULED`: not due yet: its `run_at` is in the future (a scheduled start, a retry waiting
 *   out its backoff, or a durable sleep). The scheduler makes it `PENDING` once `run_at <= now()` (database clock);
 *   claims never read it.
 * - `PENDING`: due and waiting for a free slot; claimable.
 * - `RUNNING`: claimed; owned by `claimed_by` until `lease_expires_at`.
 * - `SUCCEEDED`: the handler returned; `result` holds its JSON value.
 * - `FAILED`: attempts are used up, the failure was permanent, or no instance handles its kind;
 *   `last_error` says why.
 * - `CANCELLED`: withdrawn before it finished (`POST /jobs/:id/cancel`); a retry makes it `PENDING` again.
 */
export const JOB_STATUSES = [
  'WAITING',
  'SCHEDULED',
  'PENDING',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
] as const;

/** One of {@link JOB_STATUSES}. */
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses a job never leaves. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** A status a job never leaves: one of {@link TERMINAL_STATUSES}. */
export type TerminalStatus = 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
