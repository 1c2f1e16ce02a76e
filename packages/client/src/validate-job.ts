import { findUnstorableJson, isQueueName, MAX_DELAY_MS, NudgeError, unstorableText } from '@nudge/core';
import type { JobInput } from './job-input.js';

/** Longest kind or idempotency key accepted, in characters (as `POST /jobs`). */
export const MAX_NAME_LENGTH = 200;
/** Range of `priority` (as `POST /jobs`). */
export const PRIORITY_RANGE = { minimum: -1000, maximum: 1000 } as const;
/** Range of `maxAttempts` (as `POST /jobs`). */
export const MAX_ATTEMPTS_RANGE = { minimum: 1, maximum: 1000 } as const;

export { MAX_DELAY_MS };

const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const FIELDS = new Set([
  'kind',
  'payload',
  'queue',
  'priority',
  'runAt',
  'delayMs',
  'maxAttempts',
  'idempotencyKey',
]);

const show = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  return typeof value === 'object' && value !== null
    ? Array.isArray(value)
      ? 'an array'
      : 'an object'
    : String(value);
};

function invalid(where: string, field: string, expected: string, value: unknown): never {
  throw new NudgeError('INVALID_REQUEST', `${where}${field} must be ${expected} (got ${show(value)})`);
}

function checkName(where: string, field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length < 1 || value.length > MAX_NAME_LENGTH) {
    invalid(where, field, `a string of 1 to ${MAX_NAME_LENGTH} characters`, value);
  }
  const problem = unstorableText(value);
  if (problem) throw new NudgeError('PAYLOAD_UNSTORABLE', `${where}${field} ${problem}`);
}

function checkInteger(
  where: string,
  field: string,
  value: unknown,
  range: { minimum: number; maximum: number },
): void {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.minimum ||
    value > range.maximum
  ) {
    invalid(where, field, `an integer from ${range.minimum} to ${range.maximum}`, value);
  }
}

/**
 * Checks one job as `POST /jobs` would, before anything is written: `kind` and `idempotencyKey`
 * strings of 1 to 200 storable characters, `queue` a queue name (`isQueueName`), integer `priority` (-1000 to 1000) and
 * `maxAttempts` (1 to 1000), `runAt` a valid `Date` from 1970 to 9999, `delayMs` a whole number of ms
 * from 0 to 365 days (not both), a payload both dialects store alike, and no unknown field.
 *
 * @param where - how the message names the job, e.g. `jobs/3/` in a batch; `''` for a single job
 * @throws NudgeError `INVALID_REQUEST` naming the field; `PAYLOAD_TOO_DEEP` or
 *   `PAYLOAD_UNSTORABLE` naming the JSON Pointer in the payload
 */
export function validateJob(job: JobInput<string, unknown>, where = ''): void {
  if (typeof job !== 'object' || job === null || Array.isArray(job)) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `${where || 'the job '}must be an object with a kind (got ${show(job)})`,
    );
  }
  for (const key of Object.keys(job)) {
    if (!FIELDS.has(key)) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `${where}${key} is not a job field; use ${[...FIELDS].join(', ')}`,
      );
    }
  }
  checkName(where, 'kind', job.kind);
  if (job.queue !== undefined && (typeof job.queue !== 'string' || !isQueueName(job.queue))) {
    invalid(where, 'queue', "a queue name: 1 to 100 letters, digits, '_', '.' or '-'", job.queue);
  }
  if (job.idempotencyKey !== undefined) checkName(where, 'idempotencyKey', job.idempotencyKey);
  if (job.priority !== undefined) checkInteger(where, 'priority', job.priority, PRIORITY_RANGE);
  if (job.maxAttempts !== undefined) checkInteger(where, 'maxAttempts', job.maxAttempts, MAX_ATTEMPTS_RANGE);
  if (job.runAt !== undefined) {
    const ms = job.runAt instanceof Date ? job.runAt.getTime() : Number.NaN;
    if (!(ms >= EARLIEST_MS && ms <= LATEST_MS))
      invalid(where, 'runAt', 'a valid Date from 1970 to 9999', job.runAt);
    if (job.delayMs !== undefined) {
      throw new NudgeError('INVALID_REQUEST', `${where}runAt and delayMs cannot both be given: pick one`);
    }
  }
  if (job.delayMs !== undefined) {
    if (!Number.isInteger(job.delayMs) || !(job.delayMs >= 0 && job.delayMs <= MAX_DELAY_MS)) {
      invalid(where, 'delayMs', `a whole number of ms from 0 to ${MAX_DELAY_MS} (365 days)`, job.delayMs);
    }
  }
  if (job.payload === undefined) return;
  const problem = findUnstorableJson(job.payload);
  if (!problem) return;
  throw new NudgeError(
    problem.problem === 'too-deep' ? 'PAYLOAD_TOO_DEEP' : 'PAYLOAD_UNSTORABLE',
    `${where}payload${problem.path}: ${problem.reason}`,
  );
}

/** {@link validateJob} for each job of a batch, naming the first at fault by its index. */
export function validateJobs(jobs: ReadonlyArray<JobInput<string, unknown>>): void {
  const list: unknown = jobs;
  if (!Array.isArray(list))
    throw new NudgeError('INVALID_REQUEST', `jobs must be an array (got ${show(list)})`);
  jobs.forEach((job, index) => validateJob(job, jobs.length > 1 ? `jobs/${index}/` : ''));
}
