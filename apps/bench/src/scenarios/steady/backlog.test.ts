import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { backlogOverWindow, keptUp } from './backlog.js';

describe('backlogOverWindow', () => {
  it('is one at most when every job starts before the next is sent', () => {
    assert.deepEqual(backlogOverWindow([10, 20, 30], [11, 21, 31], 0, 100), { atEnd: 0, max: 1 });
  });
  it('finds the largest backlog and the one at the end', () => {
    // Three sent at 10, 20, 30; two start at 40 and 50; the third never does.
    assert.deepEqual(backlogOverWindow([10, 20, 30], [40, 50, Number.NaN], 0, 100), { atEnd: 1, max: 3 });
  });
  it('counts jobs sent before the window while they wait', () => {
    // Sent at 5 and 6 (warm-up), the first starts at 8 (before the window), the second at 15.
    assert.deepEqual(backlogOverWindow([5, 6, 12], [8, 15, 13], 10, 20), { atEnd: 0, max: 2 });
  });
  it('ignores what happens after the window', () => {
    assert.deepEqual(backlogOverWindow([10, 30], [25, 31], 0, 20), { atEnd: 1, max: 1 });
  });
  it('skips sends never made', () => {
    assert.deepEqual(backlogOverWindow([Number.NaN, 10], [Number.NaN, 12], 0, 20), { atEnd: 0, max: 1 });
  });
});

describe('keptUp', () => {
  it('allows up to one second of arrivals at the end', () => {
    assert.equal(keptUp({ atEnd: 100, max: 400 }, 100), true);
    assert.equal(keptUp({ atEnd: 101, max: 101 }, 100), false);
  });
});
