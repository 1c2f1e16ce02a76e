import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReadIds } from './read-ids.js';

describe('ReadIds', () => {
  it('answers each id once, ascending, and never again in a later take', () => {
    const read = new ReadIds();
    assert.deepEqual(
      read.take([
        [9, 3, 7],
        [3, 1, 9],
      ]),
      [1, 3, 7, 9],
    );
    assert.deepEqual(read.take([[7, 12, 2, 12], [1]]), [2, 12]);
    assert.deepEqual(read.take([[2, 3, 12]]), []);
    assert.deepEqual(read.take([]), []);
  });
});
