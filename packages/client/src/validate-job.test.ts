import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NudgeError } from '@nudge/core';
import { validateJob, validateJobs } from './validate-job.js';

const refuses = (job: unknown, code: string, message: RegExp): void =>
  assert.throws(
    () => validateJob(job as Parameters<typeof validateJob>[0]),
    (error: unknown) => error instanceof NudgeError && error.code === code && message.test(error.message),
  );

describe('validateJob', () => {
  test('accepts every field at its limits', () => {
    validateJob({
      kind: 'k'.repeat(200),
      priority: -1000,
      maxAttempts: 1000,
      idempotencyKey: 'x',
      queue: 'q',
    });
    validateJob({
      kind: 'k',
      runAt: new Date('9999-12-31T23:59:59.999Z'),
      payload: [1, 'two', { three: null }],
    });
    validateJob({ kind: 'k', delayMs: 0 });
  });

  test('names the field and what it must be', () => {
    refuses({ kind: 'k'.repeat(201) }, 'INVALID_REQUEST', /^kind must be a string of 1 to 200 characters/);
    refuses(
      { kind: 'k', priority: 1001 },
      'INVALID_REQUEST',
      /^priority must be an integer from -1000 to 1000 \(got 1001\)$/,
    );
    refuses({ kind: 'k', maxAttempts: 2.5 }, 'INVALID_REQUEST', /^maxAttempts/);
    refuses({ kind: 'k', queue: '' }, 'INVALID_REQUEST', /^queue/);
    refuses({ kind: 'k', runAt: '2030-01-01' }, 'INVALID_REQUEST', /^runAt must be a valid Date/);
    refuses({ kind: 'k', runAt: new Date(-1) }, 'INVALID_REQUEST', /^runAt/);
    refuses({ kind: 'k', delayMs: Number.POSITIVE_INFINITY }, 'INVALID_REQUEST', /^delayMs/);
    refuses({ kind: 'k', delay: 5 }, 'INVALID_REQUEST', /^delay is not a job field/);
    refuses(null, 'INVALID_REQUEST', /must be an object/);
    refuses({ kind: 'k\u0000' }, 'PAYLOAD_UNSTORABLE', /^kind contains U\+0000/);
    refuses({ kind: 'k', idempotencyKey: '\ud800' }, 'PAYLOAD_UNSTORABLE', /^idempotencyKey contains a lone/);
    refuses(
      { kind: 'k', payload: { list: [1, () => 2] } },
      'PAYLOAD_UNSTORABLE',
      /^payload\/list\/1: a function is not JSON/,
    );
  });

  test('a batch names the job at fault by index', () => {
    assert.throws(
      () => validateJobs([{ kind: 'a' }, { kind: 'b', priority: 0.5 }]),
      /^NudgeError: jobs\/1\/priority/,
    );
  });
});
