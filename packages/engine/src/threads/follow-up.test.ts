import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
