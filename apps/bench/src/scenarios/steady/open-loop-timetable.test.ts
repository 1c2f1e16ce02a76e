import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { dueSends, runOpenLoop, sendAtMs } from './open-loop-timetable.js';

describe('sendAtMs', () => {
  it('spaces sends evenly at the rate', () => {
    assert.equal(sendAtMs(0, 500), 0);
    assert.equal(sendAtMs(1, 500), 2);
    assert.equal(sendAtMs(100, 100), 1000);
  });
});

describe('dueSends', () => {
  it('counts the first send as due at once', () => {
    assert.equal(dueSends(0, 100, 10), 1);
    assert.equal(dueSends(-1, 100, 10), 0);
  });
  it('counts every send whose time has come', () => {
    assert.equal(dueSends(9.99, 100, 1000), 1);
    assert.equal(dueSends(10, 100, 1000), 2);
    assert.equal(dueSends(1000, 2000, 10_000), 2001);
  });
  it('never counts more than the total', () => {
    assert.equal(dueSends(60_000, 100, 50), 50);
  });
});

describe('runOpenLoop', () => {
  it('does not wait for a send before making the next', async () => {
    let inFlight = 0;
    let most = 0;
    const run = await runOpenLoop({
      ratePerSecond: 1000,
      total: 20,
      send: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 15));
        inFlight -= 1;
      },
    });
    assert.ok(most > 1, `sends overlapped (at most ${most} at once)`);
    assert.equal(run.failures, 0);
    assert.ok(run.sentAtMs.every((at) => !Number.isNaN(at)));
  });
  it('counts failed sends and keeps the first message', async () => {
    const run = await runOpenLoop({
      ratePerSecond: 1000,
      total: 3,
      send: (index) => (index === 0 ? Promise.resolve() : Promise.reject(new Error(`send ${index}`))),
    });
    assert.equal(run.failures, 2);
    assert.equal(run.firstError, 'send 1');
    assert.ok(run.doneAtMs[0] !== undefined && run.doneAtMs[0] >= (run.sentAtMs[0] ?? Infinity));
    assert.ok(Number.isNaN(run.doneAtMs[1]));
  });
});
