import { hasCharacterCountIn } from './character-count.js';
import { dedupeProblems, type DebounceOption, type ThrottleOption } from './dedupe-options.js';
import { isIsoDateTime, RUN_AT_RANGE_MS } from './iso-date-time.js';
import { NudgeError } from './nudge-error.js';
import { isQueueName } from './queue-name.js';
import { traceContextProblem } from './trace-context.js';
import { findUnstorableJson, unstorableText } from './storable-json.js';
import type { JsonValue } from './job.js';

/** Longest job kind, in characters. */
export const MAX_KIND_LENGTH = 200;

/** Longest idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/** Longest concurrency key, in characters. */
export const MAX_CONCURRENCY_KEY_LENGTH = 200;

/** Range of `priority`; a lower number runs first. */
export const PRIORITY_RANGE = { minimum: -1000, maximum: 1000 } as const;

/** Range of `maxAttempts`. */
export const MAX_ATTEMPTS_RANGE = { minimum: 1, maximum: 1000 } as const;

/** Longest `delayMs`: 365 days, in ms (31,536,000,000). */
export const MAX_DELAY_MS = 365 * 24 * 60 * 60 * 1000;

/** Most dependencies one job may list in `dependsOn`. */
export const MAX_DEPENDENCIES = 1000;

/** What `onDependencyFailure` may be; see {@link JobOptions.onDependencyFailure}. */
export const DEPENDENCY_FAILURE_MODES = ['cancel', 'run'] as const;

/** One of {@link DEPENDENCY_FAILURE_MODES}. */
export type DependencyFailureMode = (typeof DEPENDENCY_FAILURE_MODES)[number];

/**
 * One dependency of a job: the id of an existing job, or, inside a batch (`POST /jobs/batch`,
 * `enqueueMany`, the client's `batch`), `{ index }`: the job at that 0-based position of the same
 * batch, which must come earlier.
 */
export type DependencyRef = number | { readonly index: number };

/** The fields of a job, in the order messages list them. */
export const JOB_FIELDS = [
  'kind',
  'payload',
  'queue',
  'priority',
  'runAt',
  'delayMs',
  'maxAttempts',
  'idempotencyKey',
  'concurrencyKey',
  'dependsOn',
  'onDependencyFailure',
  'throttle',
  'debounce',
] as const;

/**
 * What each checked field must be, in words: the end of "`/priority` must be …". The HTTP schema
 * states the same words, so every enqueue path gives the same message.
 */
export const JOB_FIELD_EXPECTED = {
  kind: `a string of 1 to ${MAX_KIND_LENGTH} characters`,
  queue: "a queue name: 1 to 100 letters, digits, '_', '.' or '-', other than '.' and '..'",
  priority: `an integer from ${PRIORITY_RANGE.minimum} to ${PRIORITY_RANGE.maximum}`,
  runAt: 'a date-time from 1970 to 9999 with a time zone, such as 2030-01-01T09:00:00Z',
  delayMs: `a whole number of ms from 0 to ${MAX_DELAY_MS} (365 days)`,
  maxAttempts: `an integer from ${MAX_ATTEMPTS_RANGE.minimum} to ${MAX_ATTEMPTS_RANGE.maximum}`,
  idempotencyKey: `a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
  concurrencyKey: `a string of 1 to ${MAX_CONCURRENCY_KEY_LENGTH} characters`,
  dependsOn: `an array of at most ${MAX_DEPENDENCIES} job ids (whole numbers from 1), or, inside a batch, { "index": n } of an earlier job of the batch`,
  onDependencyFailure: "'cancel' or 'run'",
} as const;

/**
 * Where and how a job runs: every field a job has besides `kind` and `payload`. Omitted fields
 * take the kind's declared default, else the schema's (`queue` `'default'`, `priority` 0, run now,
 * `maxAttempts` 5).
 */
export interface JobOptions {
  /** Named queue the job waits in; a queue name (`isQueueName`). @defaultValue `'default'` */
  readonly queue?: string;
  /** Lower runs first; an integer in {@link PRIORITY_RANGE}. @defaultValue `DEFAULT_PRIORITY` (0) */
  readonly priority?: number;
  /** Earliest start, from 1970 to 9999; a future time stores the job as `SCHEDULED`. */
  readonly runAt?: Date;
  /**
   * Earliest start as a delay from now by the **database** clock, in ms: a whole number from 0 to
   * {@link MAX_DELAY_MS} (365 days). Exclusive with `runAt`.
   */
  readonly delayMs?: number;
  /** Attempts before the job is `FAILED`; an integer in {@link MAX_ATTEMPTS_RANGE}. @defaultValue `DEFAULT_MAX_ATTEMPTS` (5) */
  readonly maxAttempts?: number;
  /**
   * While a job of this kind with this key is kept, enqueueing it again creates nothing and
   * returns the existing job (`created: false`); 1 to 200 characters.
   */
  readonly idempotencyKey?: string;
  /**
   * A customer, repository or account: in a queue with a `keyConcurrency` limit k, at most k jobs
   * with the same key run at once across the cluster (k = 1: one at a time per key); jobs with
   * other keys are not held up behind them. No effect in other queues. 1 to 200 characters.
   */
  readonly concurrencyKey?: string;
  /**
   * Jobs that must finish first: the job is stored `WAITING` and becomes `PENDING` (or
   * `SCHEDULED`, while its own start is ahead) in the same transaction as the outcome of the last
   * of them. Job ids, or `{ index }` of an earlier job of the same batch; at most
   * {@link MAX_DEPENDENCIES}. A dependency that already finished counts at once.
   */
  readonly dependsOn?: readonly DependencyRef[];
  /**
   * What a dependency that ends `FAILED` or `CANCELLED` does to this job: `'cancel'` cancels it
   * (and, through it, the jobs that wait for it), `'run'` runs it anyway once every dependency
   * finished. @defaultValue `'cancel'`
   */
  readonly onDependencyFailure?: DependencyFailureMode;
  /**
   * At most one job of this kind and `throttle.key` is created per window of `throttle.windowMs`
   * (see {@link ThrottleOption}). Exclusive with `idempotencyKey` and `debounce`.
   */
  readonly throttle?: ThrottleOption;
  /**
   * One job of this kind and `debounce.key` waits at a time; a later enqueue replaces its payload
   * and moves its start (see {@link DebounceOption}). Exclusive with `runAt`, `delayMs`,
   * `idempotencyKey` and `throttle`.
   */
  readonly debounce?: DebounceOption;
}

/**
 * A job to enqueue: its kind, its payload and its {@link JobOptions}.
 *
 * @typeParam K - the job kind
 * @typeParam P - the payload type of that kind
 */
export interface JobInput<K extends string = string, P = JsonValue> extends JobOptions {
  /** Name of the handler to run; 1 to 200 characters. */
  readonly kind: K;
  /** Handler input, any JSON value (nested at most 100 levels). @defaultValue `{}` */
  readonly payload?: P;
}

/** How `runAt` arrives: a `Date` (SDK, store, `ctx.enqueue`) or ISO-8601 text (HTTP bodies). */
export type RunAtForm = 'date' | 'text';

/** A value as messages quote it: JSON, cut to 60 characters. */
export function describeValue(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return Array.isArray(value) ? 'a deeply nested array' : 'a deeply nested value';
  }
  if (json === undefined) return typeof value;
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** Most problems one message names. */
const MAX_PROBLEMS = 5;

type Field = keyof typeof JOB_FIELD_EXPECTED;

/** One field at fault: its code and the message's clause (the dedupe options' too). */
interface Problem {
  readonly code: 'INVALID_REQUEST' | 'PAYLOAD_UNSTORABLE' | 'PAYLOAD_TOO_DEEP';
  readonly text: string;
}

const invalid = (pointer: string, field: Field, value: unknown): Problem => ({
  code: 'INVALID_REQUEST',
  text:
    value === undefined
      ? `${pointer}/${field} is required: ${JOB_FIELD_EXPECTED[field]}`
      : `${pointer}/${field} must be ${JOB_FIELD_EXPECTED[field]} (got ${describeValue(value)})`,
});

function nameProblem(
  pointer: string,
  field: 'kind' | 'idempotencyKey' | 'concurrencyKey',
  value: unknown,
  max: number,
): Problem | undefined {
  if (typeof value !== 'string' || !hasCharacterCountIn(value, 1, max)) return invalid(pointer, field, value);
  const problem = unstorableText(value);
  return problem ? { code: 'PAYLOAD_UNSTORABLE', text: `${pointer}/${field} ${problem}` } : undefined;
}

function integerIn(value: unknown, range: { minimum: number; maximum: number }): boolean {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= range.minimum && value <= range.maximum
  );
}

function runAtMs(value: unknown, form: RunAtForm): number {
  if (form === 'date') return value instanceof Date ? value.getTime() : Number.NaN;
  return typeof value === 'string' && isIsoDateTime(value) ? Date.parse(value) : Number.NaN;
}

/**
 * What is wrong with `dependsOn`: each entry a job id or `{ index }`; an index only inside a batch
 * (`batchIndex` is the job's own position) and only of an earlier job; no entry twice (a repeat
 * would be stored once, which is not what was sent).
 */
function dependsOnProblem(
  value: unknown,
  pointer: string,
  batchIndex: number | undefined,
): Problem | undefined {
  if (!Array.isArray(value) || value.length > MAX_DEPENDENCIES) return invalid(pointer, 'dependsOn', value);
  // Each entry's first position, by id and by { index } (numbers, not strings: a batch of 1,000
  // jobs of 1,000 dependencies checks 1,000,000 entries).
  const seenIds = new Map<number, number>();
  const seenIndexes = new Map<number, number>();
  const repeated = (seen: Map<number, number>, entry: number, at: number): Problem | undefined => {
    const first = seen.get(entry);
    if (first === undefined) {
      seen.set(entry, at);
      return undefined;
    }
    return {
      code: 'INVALID_REQUEST',
      text: `${pointer}/dependsOn/${at} repeats entry ${first} (${describeValue((value as unknown[])[at])}): list each dependency once`,
    };
  };
  const entries = value as unknown[];
  for (let at = 0; at < entries.length; at += 1) {
    const ref = entries[at];
    if (typeof ref === 'number') {
      if (!Number.isSafeInteger(ref) || ref < 1) return invalid(pointer, 'dependsOn', value);
      const repeat = repeated(seenIds, ref, at);
      if (repeat) return repeat;
      continue;
    }
    const where = `${pointer}/dependsOn/${at}`;
    const index: unknown =
      typeof ref === 'object' && ref !== null && !Array.isArray(ref) && Object.keys(ref).length === 1
        ? (ref as Record<string, unknown>).index
        : undefined;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0)
      return invalid(pointer, 'dependsOn', value);
    if (batchIndex === undefined) {
      return {
        code: 'INVALID_REQUEST',
        text: `${where} is { "index": ${index} }, which only a job of a batch may give: name the job by its id`,
      };
    }
    if (index >= batchIndex) {
      return {
        code: 'INVALID_REQUEST',
        text: `${where} refers to job ${index} of the batch, which is not earlier than this job (${batchIndex}): a job may depend only on jobs before it`,
      };
    }
    const repeat = repeated(seenIndexes, index, at);
    if (repeat) return repeat;
  }
  return undefined;
}

/** Every field of `job` at fault, in {@link JOB_FIELDS} order. */
function problemsOf(
  j: Record<string, unknown>,
  pointer: string,
  runAt: RunAtForm,
  batchIndex: number | undefined,
): Problem[] {
  const problems: Array<Problem | undefined> = [];
  const fields: readonly string[] = JOB_FIELDS;
  for (const key of Object.keys(j)) {
    // Not a producer's field: the enqueue paths set it from the active span (see trace-context.ts).
    if (key === 'traceContext') {
      const problem = traceContextProblem(j.traceContext);
      if (problem) problems.push({ code: 'INVALID_REQUEST', text: `${pointer}/traceContext ${problem}` });
      continue;
    }
    if (!fields.includes(key)) {
      problems.push({
        code: 'INVALID_REQUEST',
        text: `${pointer}/${key} is not a job field (fields: ${JOB_FIELDS.join(', ')})`,
      });
    }
  }
  problems.push(nameProblem(pointer, 'kind', j.kind, MAX_KIND_LENGTH));
  if (j.queue !== undefined && (typeof j.queue !== 'string' || !isQueueName(j.queue)))
    problems.push(invalid(pointer, 'queue', j.queue));
  if (j.priority !== undefined && !integerIn(j.priority, PRIORITY_RANGE))
    problems.push(invalid(pointer, 'priority', j.priority));
  if (j.runAt !== undefined) {
    const ms = runAtMs(j.runAt, runAt);
    if (!(ms >= RUN_AT_RANGE_MS.minimum && ms <= RUN_AT_RANGE_MS.maximum))
      problems.push(invalid(pointer, 'runAt', j.runAt));
    else if (j.delayMs !== undefined) {
      problems.push({
        code: 'INVALID_REQUEST',
        text: `${pointer}/runAt and ${pointer}/delayMs cannot both be given: each sets the start, pick one`,
      });
    }
  }
  if (j.delayMs !== undefined && !integerIn(j.delayMs, { minimum: 0, maximum: MAX_DELAY_MS }))
    problems.push(invalid(pointer, 'delayMs', j.delayMs));
  if (j.maxAttempts !== undefined && !integerIn(j.maxAttempts, MAX_ATTEMPTS_RANGE))
    problems.push(invalid(pointer, 'maxAttempts', j.maxAttempts));
  if (j.idempotencyKey !== undefined)
    problems.push(nameProblem(pointer, 'idempotencyKey', j.idempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH));
  if (j.concurrencyKey !== undefined)
    problems.push(nameProblem(pointer, 'concurrencyKey', j.concurrencyKey, MAX_CONCURRENCY_KEY_LENGTH));
  if (j.dependsOn !== undefined) problems.push(dependsOnProblem(j.dependsOn, pointer, batchIndex));
  if (
    j.onDependencyFailure !== undefined &&
    !(DEPENDENCY_FAILURE_MODES as readonly unknown[]).includes(j.onDependencyFailure)
  )
    problems.push(invalid(pointer, 'onDependencyFailure', j.onDependencyFailure));
  else if (j.onDependencyFailure !== undefined && (!Array.isArray(j.dependsOn) || j.dependsOn.length === 0)) {
    problems.push({
      code: 'INVALID_REQUEST',
      text: `${pointer}/onDependencyFailure is given without dependsOn: it says what a failed dependency does, so give the dependencies, or leave it out`,
    });
  }
  problems.push(...dedupeProblems(j, pointer, describeValue));
  if (j.dependsOn !== undefined && (j.throttle !== undefined || j.debounce !== undefined)) {
    problems.push({
      code: 'INVALID_REQUEST',
      text: `${pointer}/dependsOn cannot be given with ${pointer}/${j.throttle !== undefined ? 'throttle' : 'debounce'}: a job that waits for others is not deduplicated, pick one`,
    });
  }
  const payload = j.payload === undefined ? undefined : findUnstorableJson(j.payload);
  if (payload) {
    problems.push({
      code: payload.problem === 'too-deep' ? 'PAYLOAD_TOO_DEEP' : 'PAYLOAD_UNSTORABLE',
      text: `${pointer}/payload${payload.path}: ${payload.reason}`,
    });
  }
  return problems.filter((problem): problem is Problem => problem !== undefined);
}

/**
 * What is wrong with one job, checked field by field in {@link JOB_FIELDS} order: an object
 * with no unknown field, `kind`, `idempotencyKey` and `concurrencyKey` strings of 1 to 200
 * storable characters,
 * `queue` a queue name, `priority` and `maxAttempts` integers in {@link PRIORITY_RANGE} and
 * {@link MAX_ATTEMPTS_RANGE}, `runAt` in {@link RUN_AT_RANGE_MS}, `delayMs` a whole number of ms
 * up to {@link MAX_DELAY_MS} and not with `runAt`, `dependsOn` job ids or `{ index }` of an
 * earlier job of the batch (`batchIndex` is the job's position in its batch; without it an index
 * is refused) each listed once, `onDependencyFailure` `'cancel'` or `'run'` and only with a
 * non-empty `dependsOn`, `throttle` and `debounce` as `dedupeProblems` checks them (neither with
 * `dependsOn`), and a payload both dialects store alike. Lengths count characters (Unicode code
 * points), as `hasCharacterCountIn` does.
 *
 * The message names each field at fault (up to 5, joined by `; `) by its JSON Pointer, with what
 * it must be: `/priority must be an integer from -1000 to 1000 (got 5000)`; `pointer` is
 * prepended (`/jobs/3` for a job inside a batch body). The code is the first problem's.
 *
 * @param runAt - how `runAt` arrives (default `'date'`)
 * @param batchIndex - the job's 0-based position in its batch; `undefined` for a single job
 * @returns a `NudgeError` to throw: `INVALID_REQUEST`, or `PAYLOAD_TOO_DEEP` / `PAYLOAD_UNSTORABLE`
 *   naming the JSON Pointer in the payload; `undefined` when the job is valid
 */
export function jobInputProblem(
  job: unknown,
  pointer = '',
  runAt: RunAtForm = 'date',
  batchIndex?: number,
): NudgeError | undefined {
  if (typeof job !== 'object' || job === null || Array.isArray(job)) {
    return new NudgeError(
      'INVALID_REQUEST',
      `${pointer || 'the job'} must be a JSON object with a kind (got ${describeValue(job)})`,
    );
  }
  const problems = problemsOf(job as Record<string, unknown>, pointer, runAt, batchIndex);
  const [first] = problems;
  if (!first) return undefined;
  return new NudgeError(
    first.code,
    problems
      .slice(0, MAX_PROBLEMS)
      .map((problem) => problem.text)
      .join('; '),
  );
}

/** Jobs built from a value that passed {@link jobInputProblem}; see {@link markJobInputChecked}. */
const checkedInputs = new WeakSet<object>();

/**
 * Marks `job`, built from a value that passed {@link jobInputProblem}, as checked: it is frozen,
 * and {@link validateJobInput} passes it without walking it again (the HTTP route checks the body
 * by the contract, then the store would check the same job). Mark only a fresh object no other
 * code can reach before it is stored: its payload is not frozen.
 * @returns `job`, frozen
 */
export function markJobInputChecked<T extends object>(job: T): Readonly<T> {
  checkedInputs.add(Object.freeze(job));
  return job;
}

/**
 * Checks one job by the rules of {@link jobInputProblem}, before anything is written; a job marked
 * by {@link markJobInputChecked} passes at once.
 * @throws NudgeError `INVALID_REQUEST` naming the field, or `PAYLOAD_TOO_DEEP` /
 *   `PAYLOAD_UNSTORABLE` naming the JSON Pointer in the payload
 */
export function validateJobInput(
  job: unknown,
  pointer = '',
  runAt: RunAtForm = 'date',
  batchIndex?: number,
): void {
  if (typeof job === 'object' && job !== null && checkedInputs.has(job)) return;
  const problem = jobInputProblem(job, pointer, runAt, batchIndex);
  if (problem) throw problem;
}

/**
 * Checks a batch of jobs: an array, each job by {@link validateJobInput} (a `dependsOn` entry
 * `{ index }` must name an earlier job of the batch). A job of a batch of more than one is named
 * `/jobs/<index>`, as in the body of `POST /jobs/batch`.
 * @throws NudgeError `INVALID_REQUEST` for a value that is not an array; the first job's error otherwise
 */
export function validateJobInputs(jobs: unknown): void {
  if (!Array.isArray(jobs))
    throw new NudgeError('INVALID_REQUEST', `/jobs must be an array (got ${describeValue(jobs)})`);
  jobs.forEach((job: unknown, index) =>
    validateJobInput(job, jobs.length > 1 ? `/jobs/${index}` : '', 'date', index),
  );
}
