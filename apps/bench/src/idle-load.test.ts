import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callsPerMinute } from './scenarios/idle-load.js';

describe('callsPerMinute', () => {
  it('turns two readings into calls a minute by method, largest first, zeros and new-only counted right', () => {
    const before = new Map([
      ['claim', 100],
      ['heartbeat', 10],
      ['migrate', 1],
    ]);
    const after = new Map([
      ['claim', 160],
      ['heartbeat', 16],
      ['migrate', 1],
      ['sweepExpired', 3],
    ]);
    assert.deepEqual(callsPerMinute(before, after, 30_000), [
      ['claim', 120],
      ['heartbeat', 12],
      ['sweepExpired', 6],
    ]);
  });
});
