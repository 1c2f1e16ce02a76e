import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { AbortFanOut } from './abort-fan-out.js';

describe('AbortFanOut', () => {
  it('holds one listener for 50 subscribers of one signal, and calls each once on abort', () => {
    const fanOut = new AbortFanOut();
    const controller = new AbortController();
    const calls: number[] = [];
    for (let n = 0; n < 50; n += 1) fanOut.subscribe(controller.signal, () => calls.push(n));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    controller.abort();
    controller.abort();
    assert.deepEqual(
      calls,
      Array.from({ length: 50 }, (_, n) => n),
    );
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('removes the listener with the last subscriber, and calls nobody who left', () => {
    const fanOut = new AbortFanOut();
    const controller = new AbortController();
    const calls: string[] = [];
    const leaveA = fanOut.subscribe(controller.signal, () => calls.push('a'));
    const leaveB = fanOut.subscribe(controller.signal, () => calls.push('b'));
    leaveA();
    leaveA();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    leaveB();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    fanOut.subscribe(controller.signal, () => calls.push('c'));
    controller.abort();
    assert.deepEqual(calls, ['c']);
  });
});
