import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { followUpOf } from './follow-up.js';

describe('followUpOf', () => {
  it('keeps the options a follow-up takes', () => {
    assert.deepEqual(followUpOf('k', { a: 1 }, { priority: 2, delayMs: 5 }), {
      kind: 'k',
      payloadJson: '{"a":1}',
      priority: 2,
      delayMs: 5,
    });
  });

  it('refuses dependsOn and onDependencyFailure, naming what to use instead', () => {
    for (const options of [
      { dependsOn: [1] },
      { dependsOn: [{ index: 0 }] },
      { onDependencyFailure: 'run' },
    ]) {
      assert.throws(
        () => followUpOf('k', {}, options),
        (error: unknown) =>
          (error as { code?: string }).code === 'INVALID_REQUEST' &&
          /is not taken by ctx\.enqueue: enqueue a flow of dependent jobs with POST \/jobs\/batch/.test(
            (error as Error).message,
          ),
      );
    }
  });
});
