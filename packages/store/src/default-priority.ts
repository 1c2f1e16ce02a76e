/**
 * The priority of a job enqueued without one: the `priority` column's default in every
 * migration. Lower runs first.
 */
export const DEFAULT_PRIORITY = 0;
