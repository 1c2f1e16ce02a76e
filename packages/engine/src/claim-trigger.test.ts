import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as afterMicrotasks } from 'node:timers/promises';
import { ClaimTrigger } from './claim-trigger.js';

/**
 * Claim passes the test ends by hand: each call of `pass` is recorded and waits until the test
 * settles it with the pass's answer (`true`: a full batch, run again at once).
 */
function handPasses() {
  const waiting: Array<(again: boolean) => void> = [];
  let started = 0;
  return {
    pass: (): Promise<boolean> => {
      started += 1;
      return new Promise<boolean>((resolve) => waiting.push(resolve));
    },
    /** Passes started so far. */
    get started() {
      return started;
    },
    /** Passes running now. */
    get running() {
      return waiting.length;
    },
    /** Ends the oldest running pass with `again`, then lets the trigger react. */
    async end(again = false): Promise<void> {
      const resolve = waiting.shift();
      assert.ok(resolve, 'a pass is running');
      resolve(again);
      await afterMicrotasks();
    },
  };
}

describe('ClaimTrigger', () => {
  it('runs a pass at once on a request', () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass);
    trigger.request();
    assert.equal(passes.started, 1);
    assert.deepEqual(trigger.counts, { requested: 1, coalesced: 0 });
  });

  it('coalesces every request made during a pass into exactly one more pass', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass);
    trigger.request();
    for (let i = 0; i < 50; i += 1) trigger.request();
    assert.equal(passes.started, 1, 'no second pass while one runs');
    assert.deepEqual(trigger.counts, { requested: 51, coalesced: 50 });
    await passes.end();
    assert.equal(passes.started, 2, 'one more pass for all 50 requests');
    await passes.end();
    assert.equal(passes.started, 2, 'nothing more is owed');
    await trigger.idle();
  });

  it('runs up to maxInFlight passes at once, and one more for the requests beyond them', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, 2);
    trigger.request();
    trigger.request();
    assert.equal(passes.running, 2);
    for (let i = 0; i < 10; i += 1) trigger.request();
    assert.equal(passes.running, 2);
    assert.deepEqual(trigger.counts, { requested: 12, coalesced: 10 });
    await passes.end();
    assert.equal(passes.started, 3, 'the owed pass starts when one ends');
    await passes.end();
    await passes.end();
    assert.equal(passes.started, 3);
    await trigger.idle();
  });

  it('claims again at once after a full batch, until a pass comes back short', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass);
    trigger.request();
    await passes.end(true);
    assert.equal(passes.started, 2, 'a full batch runs the next pass without a request');
    await passes.end(true);
    assert.equal(passes.started, 3);
    await passes.end(false);
    assert.equal(passes.started, 3, 'a short batch ends the loop');
    assert.deepEqual(trigger.counts, { requested: 1, coalesced: 0 });
    await trigger.idle();
  });

  it('idle resolves once no pass runs, and at once when none does', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass);
    await trigger.idle();
    trigger.request();
    trigger.request();
    let idle = false;
    const waiting = trigger.idle().then(() => (idle = true));
    await passes.end();
    assert.equal(idle, false, 'the owed pass runs');
    await passes.end();
    await waiting;
    assert.equal(idle, true);
  });
});
