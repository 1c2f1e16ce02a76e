import { JOB_STATUSES, type JobStatus } from '@nudge/core';

/** Turns `(status, count)` rows into a record holding every status, zero included. */
export function toStatusCounts(
  rows: ReadonlyArray<{ status: string; count: number | string | bigint }>,
): Record<JobStatus, number> {
  const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
  for (const row of rows) {
    if ((JOB_STATUSES as readonly string[]).includes(row.status))
      counts[row.status as JobStatus] = Number(row.count);
  }
  return counts;
}
