import { hasCharacterCountIn } from './character-count.js';
import { unstorableText } from './storable-json.js';

/** Longest throttle or debounce key, in characters. */
export const MAX_DEDUPE_KEY_LENGTH = 200;

/** Longest throttle window: 365 days, in ms (31,536,000,000). */
export const MAX_THROTTLE_WINDOW_MS = 365 * 24 * 60 * 60 * 1000;

/** Longest debounce delay: 365 days, in ms (31,536,000,000), as `delayMs`. */
export const MAX_DEBOUNCE_DELAY_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * At most one job per kind and `key` is created in each window of `windowMs`. The window opens
 * when its job is created (database clock); an enqueue while it is open creates nothing and
 * returns the window's job (`created: false`). Retention keeps the job while its window is open,
 * so the window lasts its full length; deleting the job by hand closes it.
 */
export interface ThrottleOption {
  /** 1 to 200 characters; windows are per kind and key. */
  readonly key: string;
  /** Length of the window from the job's creation, in ms: a whole number from 1 to 365 days. */
  readonly windowMs: number;
}

/**
 * One job per kind and `key` waits at a time: an enqueue while such a job is still `SCHEDULED`
 * replaces its payload (and trace context) and moves its `run_at` to the database's now plus
 * `delayMs`, returning it (`created: false`); otherwise a new job is created, `SCHEDULED` at now
 * plus `delayMs`.
 */
export interface DebounceOption {
  /** 1 to 200 characters; one waiting job per kind and key. */
  readonly key: string;
  /** Quiet time before the job runs, from the latest enqueue, in ms: a whole number from 1 to 365 days. */
  readonly delayMs: number;
}

/** What each dedupe field must be, in words: the end of "`/throttle/key` must be …". */
export const DEDUPE_FIELD_EXPECTED = {
  throttle: 'an object { key, windowMs }',
  debounce: 'an object { key, delayMs }',
  key: `a string of 1 to ${MAX_DEDUPE_KEY_LENGTH} characters`,
  windowMs: `a whole number of ms from 1 to ${MAX_THROTTLE_WINDOW_MS} (365 days)`,
  delayMs: `a whole number of ms from 1 to ${MAX_DEBOUNCE_DELAY_MS} (365 days)`,
} as const;

/** One dedupe field at fault: its code and the message's clause (as the job contract words them). */
export interface DedupeProblem {
  readonly code: 'INVALID_REQUEST' | 'PAYLOAD_UNSTORABLE';
  readonly text: string;
}

const wholeMs = (value: unknown, maximum: number): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= maximum;

function fieldProblem(path: string, expected: string, value: unknown, describe: (v: unknown) => string) {
  return {
    code: 'INVALID_REQUEST' as const,
    text:
      value === undefined
        ? `${path} is required: ${expected}`
        : `${path} must be ${expected} (got ${describe(value)})`,
  };
}

function optionProblems(
  option: 'throttle' | 'debounce',
  value: unknown,
  pointer: string,
  describe: (v: unknown) => string,
): DedupeProblem[] {
  const path = `${pointer}/${option}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [fieldProblem(path, DEDUPE_FIELD_EXPECTED[option], value, describe)];
  const o = value as Record<string, unknown>;
  const msField = option === 'throttle' ? 'windowMs' : 'delayMs';
  const problems: DedupeProblem[] = [];
  for (const name of Object.keys(o)) {
    if (name !== 'key' && name !== msField)
      problems.push({
        code: 'INVALID_REQUEST',
        text: `${path}/${name} is not a field of ${option} (fields: key, ${msField})`,
      });
  }
  if (typeof o.key !== 'string' || !hasCharacterCountIn(o.key, 1, MAX_DEDUPE_KEY_LENGTH)) {
    problems.push(fieldProblem(`${path}/key`, DEDUPE_FIELD_EXPECTED.key, o.key, describe));
  } else {
    const unstorable = unstorableText(o.key);
    if (unstorable) problems.push({ code: 'PAYLOAD_UNSTORABLE', text: `${path}/key ${unstorable}` });
  }
  const maximum = option === 'throttle' ? MAX_THROTTLE_WINDOW_MS : MAX_DEBOUNCE_DELAY_MS;
  if (!wholeMs(o[msField], maximum))
    problems.push(fieldProblem(`${path}/${msField}`, DEDUPE_FIELD_EXPECTED[msField], o[msField], describe));
  return problems;
}

/**
 * Options a dedupe option cannot be combined with, and why (checked when both are given):
 * debounce sets the start itself and replaces the waiting job, so it excludes `runAt`, `delayMs`,
 * an idempotency key (which never replaces) and throttle (which keeps the first job); throttle
 * excludes an idempotency key (two rules for the same repeat; a throttle is a key that expires).
 */
const EXCLUSIONS: ReadonlyArray<readonly [string, string, string]> = [
  ['debounce', 'runAt', 'debounce sets the start to now + debounce.delayMs'],
  ['debounce', 'delayMs', 'debounce sets the start to now + debounce.delayMs; give the delay there'],
  [
    'debounce',
    'idempotencyKey',
    'debounce replaces the waiting job, an idempotency key never does; pick one',
  ],
  ['debounce', 'throttle', 'debounce keeps the last enqueue, throttle the first; pick one'],
  [
    'throttle',
    'idempotencyKey',
    'both dedupe repeats of the job (a throttle is a key that expires); pick one',
  ],
];

/**
 * What is wrong with a job's `throttle` and `debounce` options: each an object with a `key` of 1
 * to 200 storable characters and a whole number of ms from 1 to 365 days (`windowMs`, `delayMs`),
 * and no contradictory combination (see the exclusions: debounce with `runAt`, `delayMs`,
 * `idempotencyKey` or `throttle`; throttle with `idempotencyKey`). Clauses name fields by their
 * JSON Pointer under `pointer`.
 *
 * @param describe - how a message quotes a value (the job contract's `describeValue`)
 */
export function dedupeProblems(
  job: Readonly<Record<string, unknown>>,
  pointer: string,
  describe: (value: unknown) => string,
): DedupeProblem[] {
  const problems: DedupeProblem[] = [];
  if (job.throttle !== undefined)
    problems.push(...optionProblems('throttle', job.throttle, pointer, describe));
  if (job.debounce !== undefined)
    problems.push(...optionProblems('debounce', job.debounce, pointer, describe));
  for (const [option, other, why] of EXCLUSIONS) {
    if (job[option] !== undefined && job[other] !== undefined)
      problems.push({
        code: 'INVALID_REQUEST',
        text: `${pointer}/${option} and ${pointer}/${other} cannot both be given: ${why}`,
      });
  }
  return problems;
}
