import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { SafetyPoll } from './safety-poll.js';

/** Polls `check` every 2 ms until it holds; rejects naming `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** A poll that records when it ran and the interval the next one was given. */
function recorder(): { poll: SafetyPoll; at: number[]; next: number[] } {
  const at: number[] = [];
  const next: number[] = [];
  const poll: SafetyPoll = new SafetyPoll({
    shortMs: 20,
    idleMaxMs: 160,
    poll: async () => {
      at.push(performance.now());
      next.push(poll.intervalMs);
    },
    onError: (error) => assert.fail(String(error)),
  });
  return { poll, at, next };
}

describe('SafetyPoll', () => {
  it('backs off, doubling up to the idle maximum, while the listener is healthy', async () => {
    const { poll, at, next } = recorder();
    poll.listening(true);
    poll.start();
    await until(() => at.length >= 5, 'five polls');
    poll.stop();
    assert.deepEqual(next.slice(0, 5), [40, 80, 160, 160, 160]);
    // Each gap is the interval given before it, less 10 % jitter (and a ms of timer slack).
    for (let i = 1; i < 4; i += 1) {
      const gap = at[i]! - at[i - 1]!;
      assert.ok(gap >= next[i - 1]! * 0.9 - 1, `poll ${i} came ${gap} ms after the one before`);
    }
  });

  it('stays at the short interval while no listener is healthy, and goes back to it when one is lost', async () => {
    const { poll, at, next } = recorder();
    poll.start();
    await until(() => at.length >= 3, 'three polls');
    assert.deepEqual(next.slice(0, 3), [20, 20, 20]);
    poll.listening(true);
    await until(() => next.at(-1) === 160, 'the back-off to reach the maximum');
    poll.listening(false);
    assert.equal(poll.intervalMs, 20);
    const before = at.length;
    await until(() => at.length >= before + 2, 'two more polls');
    poll.stop();
    assert.deepEqual(next.slice(before, before + 2), [20, 20]);
  });

  it('a sign of work brings a backed-off poll forward to the short interval', async () => {
    const { poll, at, next } = recorder();
    poll.listening(true);
    poll.start();
    await until(() => next.at(-1) === 160, 'the back-off to reach the maximum');
    const seenAt = performance.now();
    const before = at.length;
    poll.workSeen();
    await until(() => at.length > before, 'the next poll');
    poll.stop();
    const waited = at[before]! - seenAt;
    assert.ok(waited < 100, `the next poll came ${waited} ms after the sign of work, not after 160 ms`);
    assert.equal(next[before], 40, 'and the back-off starts again from the short interval');
  });

  it('a failed poll is reported, and the next one comes after the short interval', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const intervals: number[] = [];
    const poll: SafetyPoll = new SafetyPoll({
      shortMs: 10,
      idleMaxMs: 1000,
      poll: async () => {
        calls += 1;
        if (calls === 3) throw new Error('database away');
        intervals.push(poll.intervalMs);
      },
      onError: (error) => {
        errors.push(error);
        intervals.push(poll.intervalMs);
      },
    });
    poll.listening(true);
    poll.start();
    await until(() => calls >= 4, 'the poll after the failed one');
    poll.stop();
    assert.equal((errors[0] as Error).message, 'database away');
    assert.deepEqual(intervals.slice(0, 4), [20, 40, 10, 20]);
  });

  it('stop() cancels the next poll', async () => {
    const { poll, at } = recorder();
    poll.start();
    poll.stop();
    await sleep(60);
    assert.equal(at.length, 0);
  });
});
