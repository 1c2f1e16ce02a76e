import { InvalidArgumentError } from 'commander';
import {
  CANCELLABLE_STATUSES,
  JOB_FIELD_EXPECTED,
  JOB_STATUSES,
  RETRYABLE_STATUSES,
  isIsoDateTime,
  isQueueName,
  type JobStatus,
} from '@nudge/core';
import { parseRetention, type RetentionPolicy } from '@nudge/engine/settings';

/** A job id argument: a whole number ≥ 1. @throws InvalidArgumentError saying so */
export function parseJobId(text: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new InvalidArgumentError(`must be a job id, a whole number from 1 (got ${JSON.stringify(text)})`);
  return Number(text);
}

/** A whole number from `min` to `max`. @returns the parser commander calls */
export function wholeNumber(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^-?\d+$/.test(text) || value < min || value > max)
      throw new InvalidArgumentError(
        `must be a whole number from ${min} to ${max} (got ${JSON.stringify(text)})`,
      );
    return value;
  };
}

/** A job status, in any case. @throws InvalidArgumentError listing the statuses */
export function parseStatus(text: string): JobStatus {
  const status = text.toUpperCase();
  if (!(JOB_STATUSES as readonly string[]).includes(status))
    throw new InvalidArgumentError(`must be one of ${JOB_STATUSES.join(', ')} (got ${JSON.stringify(text)})`);
  return status as JobStatus;
}

/** A status a job can be retried from, in any case. @throws InvalidArgumentError listing them */
export function parseRetryStatus(text: string): JobStatus {
  const status = text.toUpperCase() as JobStatus;
  if (!RETRYABLE_STATUSES.includes(status))
    throw new InvalidArgumentError(
      `must be one of ${RETRYABLE_STATUSES.join(', ')} (got ${JSON.stringify(text)})`,
    );
  return status;
}

/**
 * Statuses a job can be cancelled from, separated by commas, in any case.
 * @throws InvalidArgumentError listing them
 */
export function parseCancelStatuses(text: string): JobStatus[] {
  const statuses = text.split(',').map((part) => part.trim().toUpperCase() as JobStatus);
  if (statuses.some((status) => !CANCELLABLE_STATUSES.includes(status)))
    throw new InvalidArgumentError(
      `must be one or more of ${CANCELLABLE_STATUSES.join(', ')}, separated by commas (got ${JSON.stringify(text)})`,
    );
  return statuses;
}

/** A date-time with a time zone, as the API takes it. @throws InvalidArgumentError with the form */
export function parseDateTime(text: string): Date {
  if (!isIsoDateTime(text))
    throw new InvalidArgumentError(`must be ${JOB_FIELD_EXPECTED.runAt} (got ${JSON.stringify(text)})`);
  return new Date(text);
}

/** A queue name. @throws InvalidArgumentError with the accepted form */
export function parseQueue(text: string): string {
  if (!isQueueName(text))
    throw new InvalidArgumentError(
      `must be a queue name: 1 to 100 letters, digits, '_', '.' or '-' (got ${JSON.stringify(text)})`,
    );
  return text;
}

/** A retention list, as `NUDGE_RETENTION` takes it. @throws InvalidArgumentError naming the entry */
export function parseRetentionArgument(text: string): RetentionPolicy {
  try {
    return parseRetention(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^retention: /, ''));
  }
}
