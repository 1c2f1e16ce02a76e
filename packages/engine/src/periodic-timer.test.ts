import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PeriodicTimer } from './periodic-timer.js';

/** Polls `check` every 5 ms until it holds; rejects naming `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

describe('PeriodicTimer', () => {
  it('waits one interval before the first run, and an interval after each run ends', async () => {
    const intervalMs = 40;
    const runs: Array<{ start: number; end: number }> = [];
    const timer = new PeriodicTimer(
      async () => {
        const start = performance.now();
        await sleep(60); // longer than the interval: a timer measured from the start would overlap
        runs.push({ start, end: performance.now() });
      },
      intervalMs,
      (error) => assert.fail(String(error)),
      0,
    );
    const startedAt = performance.now();
    timer.start();
    await until(() => runs.length >= 3, 'three runs');
    timer.stop();
    // setTimeout may fire up to 1 ms early by performance.now().
    assert.ok(runs[0]!.start - startedAt >= intervalMs - 1, 'the first run waits an interval');
    for (let i = 1; i < runs.length; i += 1) {
      const gap = runs[i]!.start - runs[i - 1]!.end;
      assert.ok(gap >= intervalMs - 1, `run ${i} started ${gap} ms after run ${i - 1} ended`);
    }
  });

  it('passes a rejection to onError and keeps running', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const timer = new PeriodicTimer(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('first run fails');
      },
      10,
      (error) => errors.push(error),
    );
    timer.start();
    await until(() => calls >= 3, 'runs after the failed one');
    timer.stop();
    assert.equal(errors.length, 1);
    assert.equal((errors[0] as Error).message, 'first run fails');
  });

  it('stop() cancels the next run; a run in progress finishes and schedules nothing', async () => {
    let calls = 0;
    let finished = 0;
    const timer = new PeriodicTimer(
      async () => {
        calls += 1;
        await sleep(50);
        finished += 1;
      },
      10,
      (error) => assert.fail(String(error)),
    );
    timer.start();
    await until(() => calls === 1, 'the first run to start');
    timer.stop();
    await until(() => finished === 1, 'the run in progress to finish');
    await sleep(100);
    assert.equal(calls, 1, 'no run after stop()');

    const idle = new PeriodicTimer(
      async () => void (calls += 1),
      20,
      (error) => assert.fail(String(error)),
    );
    idle.start();
    idle.stop();
    await sleep(80);
    assert.equal(calls, 1, 'stopped before its first run: never runs');
  });

  it('spreads each wait within ±jitterRatio of the interval', async () => {
    const intervalMs = 20;
    const gaps: number[] = [];
    let last = performance.now();
    const timer = new PeriodicTimer(
      async () => {
        const now = performance.now();
        gaps.push(now - last);
        last = now;
      },
      intervalMs,
      (error) => assert.fail(String(error)),
      0.5,
    );
    timer.start();
    await until(() => gaps.length >= 20, 'twenty runs');
    timer.stop();
    for (const gap of gaps) assert.ok(gap >= intervalMs * 0.5 - 1, `a wait of ${gap} ms is under 50 % off`);
    assert.ok(
      gaps.some((gap) => gap < intervalMs - 1),
      'some waits are shorter than the interval: jitter applies',
    );
  });
});
