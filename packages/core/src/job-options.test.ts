import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobInputProblem, markJobInputChecked, validateJobInput, validateJobInputs } from './job-options.js';
import { NudgeError } from './nudge-error.js';

const refuses = (job: unknown, code: string, message: RegExp, runAt: 'date' | 'text' = 'date'): void =>
  assert.throws(
    () => validateJobInput(job, '', runAt),
    (error: unknown) => error instanceof NudgeError && error.code === code && message.test(error.message),
  );

describe('validateJobInput', () => {
  test('accepts every field at its limits', () => {
    validateJobInput({
      kind: 'k'.repeat(200),
      priority: -1000,
      maxAttempts: 1000,
      idempotencyKey: 'x'.repeat(200),
      queue: 'q',
    });
    validateJobInput({
      kind: 'k',
      runAt: new Date('9999-12-31T23:59:59.999Z'),
      payload: [1, 'two', { three: null }],
    });
    validateJobInput({ kind: 'k', delayMs: 365 * 86_400_000 });
    validateJobInput({ kind: 'k', runAt: '1970-01-01T00:00:00Z' }, '', 'text');
  });

  test('names the field by its JSON Pointer and says what it must be', () => {
    refuses({ kind: 'k'.repeat(201) }, 'INVALID_REQUEST', /^\/kind must be a string of 1 to 200 characters/);
    refuses(
      { kind: 'k', priority: 1001 },
      'INVALID_REQUEST',
      /^\/priority must be an integer from -1000 to 1000 \(got 1001\)$/,
    );
    refuses(
      { kind: 'k', maxAttempts: 2.5 },
      'INVALID_REQUEST',
      /^\/maxAttempts must be an integer from 1 to 1000/,
    );
    refuses({ kind: 'k', maxAttempts: 1001 }, 'INVALID_REQUEST', /^\/maxAttempts/);
    refuses({ kind: 'k', queue: '' }, 'INVALID_REQUEST', /^\/queue must be a queue name/);
    refuses({ kind: 'k', runAt: '2030-01-01T00:00:00Z' }, 'INVALID_REQUEST', /^\/runAt must be a date-time/);
    refuses({ kind: 'k', runAt: new Date(-1) }, 'INVALID_REQUEST', /^\/runAt/);
    refuses({ kind: 'k', runAt: '2030-01-01T09:00:00' }, 'INVALID_REQUEST', /^\/runAt/, 'text');
    refuses({ kind: 'k', runAt: new Date(), delayMs: 5 }, 'INVALID_REQUEST', /cannot both be given/);
    refuses({ kind: 'k', delayMs: Number.POSITIVE_INFINITY }, 'INVALID_REQUEST', /^\/delayMs/);
    refuses({ kind: 'k', delayMs: 365 * 86_400_000 + 1 }, 'INVALID_REQUEST', /^\/delayMs .*\(365 days\)/);
    refuses({ kind: 'k', delay: 5 }, 'INVALID_REQUEST', /^\/delay is not a job field/);
    refuses(null, 'INVALID_REQUEST', /^the job must be a JSON object with a kind/);
    refuses({ kind: 'k\u0000' }, 'PAYLOAD_UNSTORABLE', /^\/kind contains U\+0000/);
    refuses(
      { kind: 'k', idempotencyKey: '\ud800' },
      'PAYLOAD_UNSTORABLE',
      /^\/idempotencyKey contains a lone/,
    );
    refuses(
      { kind: 'k', payload: { list: [1, () => 2] } },
      'PAYLOAD_UNSTORABLE',
      /^\/payload\/list\/1: a function is not JSON/,
    );
  });

  test('prefixes the pointer it is given', () => {
    assert.match(
      jobInputProblem({ kind: 'k', priority: 'high' }, '/jobs/7')?.message ?? '',
      /^\/jobs\/7\/priority/,
    );
  });

  test('a batch names the job at fault by index', () => {
    assert.throws(
      () => validateJobInputs([{ kind: 'a' }, { kind: 'b', priority: 0.5 }]),
      /^NudgeError: \/jobs\/1\/priority/,
    );
    assert.throws(() => validateJobInputs([{ kind: 'b', priority: 0.5 }]), /^NudgeError: \/priority/);
    assert.throws(() => validateJobInputs('x'), /^NudgeError: \/jobs must be an array/);
  });

  test('a job marked as checked is frozen and passes without a second walk', () => {
    const job = markJobInputChecked({ kind: 'k', payload: { n: 1 } });
    assert.ok(Object.isFrozen(job));
    validateJobInput(job);
    // What the mark skips: an unmarked job with the same shape is walked (and this one refused).
    assert.throws(
      () => validateJobInput({ kind: 'k', payload: { n: Infinity } }),
      /^NudgeError: \/payload\/n/,
    );
  });
});
