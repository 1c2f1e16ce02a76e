import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { RunTally } from './run-tally.js';

describe('RunTally', () => {
  it('counts lost jobs and extra runs', () => {
    const tally = new RunTally(4);
    tally.record(0, 1);
    tally.record(1, 2);
    tally.record(1, 3);
    tally.record(1, 4);
    tally.record(3, 5);
    assert.deepEqual(tally.exactlyOnce(), { lost: 1, duplicate: 2 });
    assert.equal(tally.distinct, 3);
    assert.equal(tally.lastAtMs, 5);
    assert.equal(tally.firstAtMs(1), 2);
    assert.ok(Number.isNaN(tally.firstAtMs(2)));
  });

  it('refuses sequence numbers outside the measurement', () => {
    const tally = new RunTally(2);
    assert.equal(tally.record(2, 1), false);
    assert.equal(tally.record(-1, 1), false);
    assert.deepEqual(tally.exactlyOnce(), { lost: 2, duplicate: 0 });
  });

  it('wakes a waiter for one job and a waiter for all jobs', async () => {
    const tally = new RunTally(2);
    const one = tally.waitFor(1, 1000);
    const all = tally.waitFor(undefined, 1000);
    tally.record(1, 10);
    assert.equal(await one, true);
    tally.record(0, 11);
    assert.equal(await all, true);
    assert.equal(await tally.waitFor(0, 0), true);
  });

  it('gives up after the timeout', async () => {
    const tally = new RunTally(1);
    assert.equal(await tally.waitFor(undefined, 5), false);
  });

  it('uses a different run id each time', () => {
    assert.notEqual(new RunTally(1).run, new RunTally(1).run);
  });
});
