import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as afterMicrotasks } from 'node:timers/promises';
import { ClaimTrigger, type PassOutcome } from './claim-trigger.js';

/**
 * Claim passes the test ends by hand: each call of `pass` is recorded and waits until the test
 * settles it with the pass's outcome (`full`: run again at once).
 */
function handPasses() {
  const waiting: Array<(outcome: PassOutcome) => void> = [];
  const onStart: Array<() => void> = [];
  let started = 0;
  return {
    pass: (): Promise<PassOutcome> => {
      started += 1;
      for (const resolve of onStart.splice(0)) resolve();
      return new Promise<PassOutcome>((resolve) => waiting.push(resolve));
    },
    /** Passes started so far. */
    get started() {
      return started;
    },
    /** Passes running now. */
    get running() {
      return waiting.length;
    },
    /** Resolves when the next pass starts. */
    nextStart(): Promise<void> {
      return new Promise((resolve) => onStart.push(resolve));
    },
    /** Ends the oldest running pass with `outcome`, then lets the trigger react. */
    async end(outcome: PassOutcome = 'claimed'): Promise<void> {
      const resolve = waiting.shift();
      assert.ok(resolve, 'a pass is running');
      resolve(outcome);
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
    const trigger = new ClaimTrigger(passes.pass, { maxInFlight: 2 });
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
    await passes.end('full');
    assert.equal(passes.started, 2, 'a full batch runs the next pass without a request');
    await passes.end('full');
    assert.equal(passes.started, 3);
    await passes.end('claimed');
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

  it('after two empty passes in a row, the next waits out the cooldown, and requests fold into it', async () => {
    const cooldownMs = 40;
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, { cooldownMs });
    trigger.request();
    await passes.end('empty');
    trigger.request();
    assert.equal(passes.started, 2, 'one empty pass does not slow the next request');
    // Taken before the pass ends: the cooldown starts when the trigger sees the end, not later.
    const lastEmptyAt = performance.now();
    await passes.end('empty');
    const next = passes.nextStart();
    for (let i = 0; i < 50; i += 1) trigger.request();
    assert.equal(passes.started, 2, 'no pass during the cooldown');
    assert.deepEqual(trigger.counts, { requested: 52, coalesced: 49 });
    await next;
    // Timers may fire up to a millisecond early against performance.now().
    assert.ok(performance.now() - lastEmptyAt >= cooldownMs - 1, 'not before the cooldown ended');
    assert.equal(passes.started, 3, 'one pass for all 50 requests');
    await passes.end('claimed');
    trigger.request();
    assert.equal(passes.started, 4, 'a pass that claimed ends the cooldown');
    await passes.end('empty');
    await trigger.idle();
  });

  it('while empty passes come in a row, passes run one at a time even where more may run at once', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, { maxInFlight: 2, cooldownMs: 10 });
    trigger.request();
    trigger.request();
    assert.equal(passes.running, 2, 'two at once before any pass came back empty');
    await passes.end('empty');
    await passes.end('empty');
    const paced = passes.nextStart();
    trigger.request();
    await paced;
    for (let i = 0; i < 20; i += 1) trigger.request();
    assert.equal(passes.running, 1, 'the requests during a paced pass wait for it');
    const owed = passes.nextStart();
    await passes.end('empty');
    assert.equal(passes.started, 3, 'the pass owed for them waits out the cooldown');
    await owed;
    assert.equal(passes.started, 4, 'one pass for all 20 requests');
    await passes.end('claimed');
    trigger.request();
    trigger.request();
    assert.equal(passes.running, 2, 'a pass that claimed lets two run at once again');
    await passes.end('claimed');
    await passes.end('claimed');
    await trigger.idle();
  });

  it('a skipped pass neither counts as empty nor ends a run of empty ones', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, { cooldownMs: 60_000 });
    trigger.request();
    await passes.end('empty');
    trigger.request();
    await passes.end('skipped');
    trigger.request();
    assert.equal(passes.started, 3, 'one empty pass so far: no cooldown');
    await passes.end('empty');
    trigger.request();
    assert.equal(passes.started, 3, 'two empty passes, a skipped one between them: cooldown');
    trigger.cancelDeferred();
    await trigger.idle();
  });

  it('a pass owed for requests during a running one waits out the cooldown too', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, { cooldownMs: 60_000 });
    trigger.request();
    await passes.end('empty');
    trigger.request();
    trigger.request();
    await passes.end('empty');
    assert.equal(passes.started, 2, 'the owed pass is deferred');
    let idle = false;
    const waiting = trigger.idle().then(() => (idle = true));
    await afterMicrotasks();
    assert.equal(idle, false, 'idle waits for the deferred pass');
    trigger.cancelDeferred();
    await waiting;
    assert.equal(passes.started, 2, 'a cancelled pass never runs');
    trigger.request();
    assert.equal(passes.started, 2, 'still cooling down: deferred again');
    trigger.cancelDeferred();
  });

  it('with a cooldown of 0 every empty pass is followed by the next request at once', async () => {
    const passes = handPasses();
    const trigger = new ClaimTrigger(passes.pass, { cooldownMs: 0 });
    for (let i = 1; i <= 5; i += 1) {
      trigger.request();
      assert.equal(passes.started, i);
      await passes.end('empty');
    }
    await trigger.idle();
  });

  it('a pass that throws is reported and counts as empty; the trigger keeps running', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const trigger = new ClaimTrigger(
      async () => {
        calls += 1;
        if (calls <= 2) throw new Error(`claim ${calls} failed`);
        return 'claimed';
      },
      { cooldownMs: 60_000, onError: (error) => errors.push(error) },
    );
    trigger.request();
    await trigger.idle();
    trigger.request();
    await trigger.idle();
    assert.deepEqual(
      errors.map((error) => (error as Error).message),
      ['claim 1 failed', 'claim 2 failed'],
    );
    trigger.request();
    assert.equal(calls, 2, 'two failed passes in a row: the next waits out the cooldown');
    trigger.cancelDeferred();
  });
});
