import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_FIELDS } from '@nudge/core';
import { followUpOf } from './follow-up.js';

describe('followUpOf', () => {
  it('keeps the options a follow-up takes', () => {
    assert.deepEqual(followUpOf('k', { a: 1 }, { priority: 2, delayMs: 5 }, 0), {
      kind: 'k',
      payloadJson: '{"a":1}',
      priority: 2,
      delayMs: 5,
    });
  });

  it('keeps every job option of the contract (a new option fails here until it is carried)', () => {
    const samples: Array<Record<string, unknown>> = [
      {
        queue: 'q',
        priority: 2,
        runAt: new Date('2030-01-01T00:00:00Z'),
        maxAttempts: 3,
        idempotencyKey: 'i',
        concurrencyKey: 'c',
        dependsOn: [7],
        onDependencyFailure: 'run',
      },
      { delayMs: 5, throttle: { key: 't', windowMs: 1000 } },
      { debounce: { key: 'd', delayMs: 1000 } },
    ];
    const options = JOB_FIELDS.filter((field) => field !== 'kind' && field !== 'payload');
    assert.deepEqual(
      samples.flatMap((sample) => Object.keys(sample)).sort(),
      [...options].sort(),
      'the samples hold every option once',
    );
    for (const sample of samples) {
      const carried = followUpOf('k', undefined, sample, 1) as Record<string, unknown>;
      for (const [field, value] of Object.entries(sample)) {
        assert.deepEqual(carried[field], value instanceof Date ? value.toISOString() : value, field);
      }
    }
  });

  it('keeps dependsOn as plain values, ids and indexes of earlier follow-ups', () => {
    const ref = Object.create({ inherited: 1 }) as { index: number };
    ref.index = 1;
    assert.deepEqual(
      followUpOf('merge', undefined, { dependsOn: [7, { index: 0 }, ref], onDependencyFailure: 'run' }, 2),
      { kind: 'merge', dependsOn: [7, { index: 0 }, { index: 1 }], onDependencyFailure: 'run' },
    );
  });

  it('refuses an index that is not an earlier follow-up of the attempt, naming the field', () => {
    for (const [index, position] of [
      [0, 0],
      [3, 2],
    ] as const) {
      assert.throws(
        () => followUpOf('k', {}, { dependsOn: [{ index }] }, position),
        (error: unknown) =>
          (error as { code?: string }).code === 'INVALID_REQUEST' &&
          (error as Error).message.startsWith(
            `/dependsOn/0 refers to job ${index} of the batch, which is not earlier`,
          ),
      );
    }
  });
});
