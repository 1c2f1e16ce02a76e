import { CANCELLABLE_STATUSES, NudgeError, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { CancelJobsFilter, RetryJobsFilter } from './bulk-command-types.js';

// `dates`: the lower bound, then the upper bound of a time range.
function checkLimitAndDates(
  limit: number | undefined,
  dates: Readonly<Record<string, Date | undefined>>,
): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
    throw new NudgeError('INVALID_REQUEST', `limit must be a whole number ≥ 1 (got ${limit})`);
  for (const [name, date] of Object.entries(dates)) {
    if (date !== undefined && Number.isNaN(date.getTime()))
      throw new NudgeError('INVALID_REQUEST', `${name} must be a valid date`);
  }
  const [[afterName, after], [beforeName, before]] = Object.entries(dates) as [
    [string, Date | undefined],
    [string, Date | undefined],
  ];
  if (after && before && after.getTime() >= before.getTime())
    throw new NudgeError(
      'INVALID_REQUEST',
      `${afterName} must be earlier than ${beforeName}: no job can match both (got ${after.toISOString()} and ${before.toISOString()})`,
    );
}

/**
 * Checks a {@link RetryJobsFilter} before any row is read.
 * @throws NudgeError `INVALID_REQUEST` naming the field: a status that cannot be retried, a
 * limit that is not a whole number ≥ 1, an invalid date, or a range that is empty
 */
export function checkRetryFilter(filter: RetryJobsFilter): void {
  if (!RETRYABLE_STATUSES.includes(filter.status))
    throw new NudgeError(
      'INVALID_REQUEST',
      `status must be one of ${RETRYABLE_STATUSES.join(', ')} (got ${filter.status})`,
    );
  checkLimitAndDates(filter.limit, {
    finishedAfter: filter.finishedAfter,
    finishedBefore: filter.finishedBefore,
  });
}

/**
 * Checks a {@link CancelJobsFilter} before any row is read.
 * @returns the statuses to cancel: those given, without repeats, or every cancellable one
 * @throws NudgeError `INVALID_REQUEST` naming the field: an empty or uncancellable status, a
 * limit that is not a whole number ≥ 1, an invalid date, or a range that is empty
 */
export function checkCancelFilter(filter: CancelJobsFilter): readonly JobStatus[] {
  const statuses = filter.statuses ?? CANCELLABLE_STATUSES;
  const wrong = statuses.filter((status) => !CANCELLABLE_STATUSES.includes(status));
  if (statuses.length === 0 || wrong.length > 0)
    throw new NudgeError(
      'INVALID_REQUEST',
      `status must be one or more of ${CANCELLABLE_STATUSES.join(', ')} (got ${statuses.join(', ') || 'none'})`,
    );
  checkLimitAndDates(filter.limit, {
    createdAfter: filter.createdAfter,
    createdBefore: filter.createdBefore,
  });
  return [...new Set(statuses)];
}
