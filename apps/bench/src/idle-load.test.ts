import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { callsOf, callsPerMinute, SCRAPE_STORE_METHODS } from './scenarios/idle-load.js';

const before = new Map([
  ['claim', 100],
  ['heartbeat', 10],
  ['migrate', 1],
  ['countByStatus', 1],
]);
const after = new Map([
  ['claim', 160],
  ['heartbeat', 16],
  ['migrate', 1],
  ['sweepExpired', 3],
  ['countByStatus', 2],
]);

describe('callsPerMinute', () => {
  it('turns two readings into calls a minute by method, largest first, zeros and new-only counted right', () => {
    assert.deepEqual(callsPerMinute(before, after, 30_000), [
      ['claim', 120],
      ['heartbeat', 12],
      ['sweepExpired', 6],
      ['countByStatus', 2],
    ]);
  });

  it("leaves out the bench's own scrape calls", () => {
    assert.deepEqual(callsPerMinute(before, after, 30_000, SCRAPE_STORE_METHODS), [
      ['claim', 120],
      ['heartbeat', 12],
      ['sweepExpired', 6],
    ]);
  });
});

describe('callsOf', () => {
  it('counts the calls of the given methods between two readings', () => {
    assert.equal(callsOf(before, after, SCRAPE_STORE_METHODS), 1);
    assert.equal(callsOf(new Map(), after, new Set(['countByStatus', 'sweepExpired'])), 5);
    assert.equal(callsOf(before, after, new Set(['absent'])), 0);
  });
});
